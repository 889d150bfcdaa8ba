import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { deferredChild, type Logger, withTrailId } from '@recipes/logging';
import { httpMetrics } from '@recipes/metrics';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { paramsLast, refuseUnknownParams } from './check-order.js';
import { dualProtocolServer } from './cleartext-http2.js';
import { absentBodyAsUndefined, refuseNullBody, refuseUndeclaredBody } from './optional-body.js';
import { answerClientError } from './client-errors.js';
import errorsPlugin, { sendProblem } from './errors-plugin.js';
import healthPlugin, { type ReadinessChecks } from './health.js';
import { depthLimitedJsonParser } from './json-body.js';
import { sendLocation } from './location.js';
import openApiPlugin from './openapi.js';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js';
import { answerNotTaken, onStopTaking } from './not-taken.js';
import { logRequestCompleted } from './request-line.js';
import { responseSerializerCompiler } from './serializer.js';

/** A Fastify instance whose routes are typed by their zod schemas. */
export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface AppSettings {
  /** Names the service in the OpenAPI document. */
  title: string;
  description?: string;
  logger: Logger;
  readiness?: ReadinessChecks;
  /**
   * How long an answer of `/health/ready` is reused (HEALTH_CACHE_MS); by default only probes at the same time share
   * one.
   */
  readinessCacheMs?: number;
  bodyLimit?: number;
  /** Check every response against its zod schema before it is sent (tests); otherwise it is only serialized by it. */
  validateResponses?: boolean;
  /**
   * Which proxies' `X-Forwarded-For` to believe (proxy-addr syntax), for rate limits per address; false for nobody's.
   */
  trustProxy?: string | false;
  /**
   * Also speak HTTP/2 with prior knowledge (h2c) on the same port, as a service that serves event streams
   * does (`servesStreams` of its definition): the gateway carries the streams it proxies over one such
   * connection (see cleartext-http2.ts).
   */
  acceptH2c?: boolean;
  /** How long a request's headers, and its headers and body, may take to arrive before it is answered 408. */
  clientTimeouts?: ClientTimeouts;
  /**
   * Looks at each request before Fastify does, and may answer it itself (returning true): the cheapest
   * answer the process can give, with no routing, hook or log line. The gateway sheds load with it while
   * its own event loop is behind (services/gateway/src/admission/loop-guard.ts). HTTP/1.1 only.
   */
  answerEarly?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /**
   * Serves its own OpenAPI document at `/openapi.json` (the default). The gateway does not: its `/openapi.json` is the
   * document merged from every service's.
   */
  servesOwnDocument?: boolean;
}

export interface ClientTimeouts {
  headersMs: number;
  requestMs: number;
}

/** How often Node looks for requests past their time (its default, 30 s, would let one run 30 s over). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * Node's HTTP server options for `timeouts`: a client that sends its request slowly (a body announced and
 * never sent) is answered 408 (see client-errors.ts) and its connection closed, instead of holding a
 * socket for as long as it likes (Fastify's default `requestTimeout` is none).
 */
function clientTimeoutOptions({ headersMs, requestMs }: ClientTimeouts) {
  return {
    requestTimeout: requestMs,
    http: {
      headersTimeout: Math.min(headersMs, requestMs),
      requestTimeout: requestMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
  };
}

/** Fastify's `serverFactory` for `AppSettings.answerEarly`: Node's HTTP/1.1 server with Fastify's defaults. */
function answeringEarly(answerEarly: NonNullable<AppSettings['answerEarly']>) {
  return (handler: RequestListener, options: FastifyServerOptions & { http?: ServerOptions }): Server => {
    const server = createServer(options.http ?? {}, (request, response) => {
      if (!answerEarly(request, response)) handler(request, response);
    });
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    return server;
  };
}

/**
 * The one way a service builds its HTTP app: zod validation and serialization, problem+json errors,
 * `x-request-id` in and out (and on every log line of the request), request metrics, health endpoints and OpenAPI.
 */
export async function createApp(settings: AppSettings): Promise<App> {
  const app = Fastify({
    loggerInstance: settings.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    // Each request's logger is made only if the request writes a line (see deferred-child.ts).
    childLoggerFactory: (logger, bindings, options) => deferredChild(logger as Logger, bindings, options),
    // One line per request, written as it completes (below), rather than Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: settings.bodyLimit ?? BODY_LIMIT_BYTES,
    trustProxy: settings.trustProxy ?? 'loopback',
    // Errors Fastify raises before routing (a malformed URL) are problem+json like every other error.
    frameworkErrors: (error, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      sendProblem(
        request,
        reply,
        error.statusCode && error.statusCode < 500 ? error.statusCode : 400,
        'The request URL is not valid',
      );
    },
    // And so are requests Node's HTTP parser refuses before Fastify sees them.
    clientErrorHandler: answerClientError,
    ...(settings.clientTimeouts ? clientTimeoutOptions(settings.clientTimeouts) : {}),
    ...(settings.acceptH2c ? { serverFactory: dualProtocolServer } : {}),
    ...(settings.answerEarly && !settings.acceptH2c ? { serverFactory: answeringEarly(settings.answerEarly) } : {}),
  }).withTypeProvider<ZodTypeProvider>();

  // Bodies are JSON only (docs/api.md §1): without the built-in text parser, anything else is 415.
  app.removeContentTypeParser('text/plain');
  // And no deeper than JSON_DEPTH_LIMIT, checked before the body is parsed.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJsonParser(app));
  app.setValidatorCompiler(paramsLast(absentBodyAsUndefined(validatorCompiler)));
  app.addHook('preHandler', refuseUnknownParams);
  app.addHook('preValidation', refuseNullBody);
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/') && route.schema && !route.schema.hide && route.schema.body === undefined) {
      route.preValidation = [route.preValidation ?? []].flat().concat(refuseUndeclaredBody);
    }
  });
  app.setSerializerCompiler(responseSerializerCompiler(settings.validateResponses ?? false));
  // Hooks on every request take a callback rather than return a promise: one allocation and one
  // microtask fewer each, on the path every request takes.
  // And once the instance stops taking requests (`stopTaking`), each is answered at once, untouched.
  let taking = true;
  onStopTaking(app, () => {
    taking = false;
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (taking) done();
    else answerNotTaken(request, reply);
  });
  // The request id becomes the trail id (see @recipes/logging) that calls to other services pass on. Set
  // once the body is read: the body parser's stream callbacks would leave an earlier context behind.
  app.addHook('preHandler', (request, _reply, done) => withTrailId(request.id, done));
  // A response that finishes while the server is closing also closes its keep-alive connection;
  // otherwise the idle connection would hold the shutdown open. (HTTP/2 has no such header: its sessions
  // are closed as a whole, see cleartext-http2.ts.) And a connection that has not sent a byte (a client's
  // spare, opened ahead of a request) is closed as the app closes: Node's closeIdleConnections passes over
  // it, and the close would wait until the client gave up on it.
  let closing = false;
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  });
  app.addHook('onSend', sendLocation);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    done(null, payload);
  });

  // Below info (LOG_LEVEL=warn), not even the line's fields are put together.
  const logsRequests = settings.logger.isLevelEnabled('info');
  app.addHook('onResponse', (request, reply, done) => {
    if (logsRequests && !request.url.startsWith('/health/')) logRequestCompleted(request, reply);
    done();
  });

  // Before any route, so its timing hook covers them all: the gateway's proxy and 404s included.
  await app.register(httpMetrics);
  await app.register(errorsPlugin);
  await app.register(healthPlugin, { checks: settings.readiness ?? {}, cacheMs: settings.readinessCacheMs ?? 0 });
  await app.register(openApiPlugin, {
    title: settings.title,
    description: settings.description ?? settings.title,
    servesDocument: settings.servesOwnDocument ?? true,
  });
  return app;
}
