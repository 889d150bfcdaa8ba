import type { IncomingHttpHeaders } from 'node:http';
import replyFrom, { type FastifyReplyFromHooks } from '@fastify/reply-from';
import {
  type App,
  bodySent,
  type LimitHook,
  NOT_TAKEN_HEADER,
  pathOf,
  REQUEST_ID_HEADER,
  sendProblem,
  undeclaredBody,
} from '@recipes/http';
import type { FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { type Admission, requestClassOf } from '../admission/admission.js';
import { recordResponses } from '../response-record.js';
import { routeEachRequest } from '../routed-request.js';
import { codesOf, isIdempotent, wasCutOff, wasRefused } from '../upstream-failures.js';
import type { Upstreams } from '../upstreams.js';

export interface ProxyOptions {
  upstreams: Upstreams;
  /** The gateway's rate limit, when it has one. */
  limit?: LimitHook | undefined;
  /** The concurrency limit in front of each service, when there is one. */
  admission?: Admission | undefined;
  /** Appends every response of the proxy to this file (see response-record.ts): tests only. */
  recordResponsesTo?: string | undefined;
}

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Hop-by-hop headers concern one connection only (RFC 9110 §7.6.1); undici also refuses to send some
 * of them (`expect`, which curl adds to larger bodies, `keep-alive`, `upgrade`). `connection` and
 * `transfer-encoding` are already dropped by reply-from.
 */
const HOP_BY_HOP = ['keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'expect'] as const;

export function forwardedRequestHeaders(request: FastifyRequest, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  for (const name of HOP_BY_HOP) delete headers[name];
  headers[REQUEST_ID_HEADER] = request.id;
  // The services believe the gateway's X-Forwarded-For, so a client's own claim goes on (the peer appended,
  // as every proxy does) only when the peer is a proxy in TRUST_PROXY: request.ips goes past the peer only
  // then. From anyone else it is replaced by the peer's address, or any client could name its own.
  const peer = request.socket.remoteAddress;
  if (peer) {
    const prior = headers['x-forwarded-for'];
    const fromTrustedProxy = (request.ips?.length ?? 0) > 1;
    headers['x-forwarded-for'] = prior && fromTrustedProxy ? `${String(prior)}, ${peer}` : peer;
  }
  return headers;
}

/**
 * Lists that the gateway and the service each add to: CORS's `Vary: Origin` beside a service's
 * `Vary: Authorization`, the gateway's rate limit beside a service's. The service's items come first.
 */
const SHARED_LIST_HEADERS = ['vary', 'ratelimit-policy', 'ratelimit'] as const;

/** The service's response headers, with what the gateway set on `reply` already added to its lists. */
export function forwardedResponseHeaders(headers: IncomingHttpHeaders, reply: FastifyReply): IncomingHttpHeaders {
  delete headers.connection;
  delete headers['keep-alive'];
  for (const name of SHARED_LIST_HEADERS) {
    const own = reply.getHeader(name);
    if (own === undefined) continue;
    const theirs = headers[name];
    headers[name] = theirs === undefined ? String(own) : `${String(theirs)}, ${String(own)}`;
  }
  return headers;
}

/**
 * Before any response: reply-from's gateway timeout means the service took too long; anything else
 * (refused, reset, connect timeout, DNS) means it could not be reached. reply-from has logged the cause.
 */
function onUpstreamError(reply: FastifyReply, { error }: { error: Error }): void {
  if ((error as Error & { code?: string }).code === 'FST_REPLY_FROM_GATEWAY_TIMEOUT')
    sendProblem(reply.request, reply, 504, 'The service did not answer in time');
  else {
    reply.header('retry-after', 1);
    sendProblem(reply.request, reply, 503, 'The service is unavailable, try again later');
  }
}

/** Never forwarded: worded as the services' own 404 for an unknown route. */
function notFound(request: FastifyRequest, reply: FastifyReply): void {
  sendProblem(request, reply, 404, `No route for ${request.method} ${pathOf(request.url)}`);
}

// Cast: reply-from types its hooks for HTTP/2 servers too; this one is HTTP/1 only.
const fromOptions = {
  rewriteRequestHeaders: forwardedRequestHeaders,
  onError: onUpstreamError,
  // Never replay a request: a retried POST could act twice, and an upstream's own 503 is passed on as is.
  retryDelay: () => null,
} as FastifyReplyFromHooks;

/**
 * `/api/*` to the owning service: method, path and query, headers and the body's exact bytes; the
 * response comes back streamed and unchanged. Not wrapped in fastify-plugin: the body parser below
 * applies to these routes only.
 */
export default async function proxyPlugin(app: App, { upstreams, limit, admission, recordResponsesTo }: ProxyOptions) {
  if (recordResponsesTo) recordResponses(app, recordResponsesTo);
  // Any content type is read as raw bytes within the body limit (413 beyond it, chunked or not) and sent
  // on untouched: judging content types (415) and parsing JSON (400) is the services' job.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  await app.register(replyFrom, { undici: upstreams.agent, disableRequestLogging: true });
  routeEachRequest(app);

  app.route({
    method: METHODS,
    url: '/api/*',
    schema: { hide: true },
    ...(limit ? { onRequest: limit } : {}),
    handler(request, reply) {
      // Routed on the decoded segments, and exactly those are forwarded: never request.url itself, which
      // the HTTP client would normalise (`\` to `/`, dot segments resolved) into some other path.
      const routed = request.routed;
      if (routed === null) {
        notFound(request, reply);
        return;
      }
      const { target, upstream: service } = routed;
      // No read of the API takes a body, and the services never see one sent with it (the HTTP client
      // drops it): refused here, as each service refuses one where its operation declares none.
      if ((request.method === 'GET' || request.method === 'HEAD') && bodySent(request)) {
        reply.send(undeclaredBody());
        return;
      }
      // The raw bytes go as `body` with their own content type: left as request.body, reply-from would
      // JSON-encode a Buffer sent as application/json. Without a content type, bytes are octet-stream (RFC 9110 §8.3).
      const body = request.body;
      const options = Buffer.isBuffer(body)
        ? { ...fromOptions, body, contentType: request.headers['content-type'] ?? 'application/octet-stream' }
        : fromOptions;
      const idempotent = isIdempotent(request);
      // Each instance in turn, moving on while they refuse the connection or answer that they are stopping
      // and did not take the request, or cut it off a request that acts once however often it is sent. Once every
      // instance has, the request waits until one answers ready again, or the restart wait is over: a restart is a wait.
      const restart = upstreams.restartWait();
      /** Gives the request's admission slot back: set once it has one. */
      let leaveSlot = () => undefined as void;
      const canWait = () => !reply.raw.destroyed && restart.open;
      const waitForRestart = (): void => {
        // Its wait holds no slot that a request to an instance that is up could use, and it comes back through
        // its lane, with every request that waited, as one burst (restart-watch.ts).
        leaveSlot();
        void upstreams.afterRestart(service, restart).then(() => {
          if (!reply.raw.destroyed) admitThen(send);
        });
      };
      const tryAgain = (base: string, others: string[], why: object, message: string): void => {
        request.log.warn({ upstream: base, ...why }, message);
        if (others.length > 0) forward(others);
        else waitForRestart();
      };
      const forward = ([base, ...others]: string[]): void => {
        // The last instance left said it is stopping: its connections close as it drains, so a request sent on one
        // now could be cut off, unanswered and maybe taken. It waits for the instance's restart instead.
        if (others.length === 0 && upstreams.isStopping(base!) && canWait()) return waitForRestart();
        let notTaken = false;
        reply.from(`${base}${target.path}`, {
          ...options,
          queryString: () => target.query,
          rewriteHeaders(headers) {
            notTaken = headers[NOT_TAKEN_HEADER] !== undefined && (others.length > 0 || canWait());
            return notTaken ? {} : forwardedResponseHeaders(headers, reply);
          },
          onResponse(_request, _reply, response) {
            if (!notTaken) return void reply.send(response.stream);
            response.stream.resume();
            upstreams.stopping(base!);
            tryAgain(base!, others, {}, 'upstream stopping did not take the request: trying it again elsewhere');
          },
          onError: (_sameReply, failure) => {
            const untaken = wasRefused(failure.error) || (idempotent && wasCutOff(failure.error));
            if (!untaken || (others.length === 0 && !canWait())) return onUpstreamError(reply, failure);
            tryAgain(
              base!,
              others,
              { codes: codesOf(failure.error) },
              'upstream failed before answering: trying it again elsewhere',
            );
          },
        });
      };
      const send = () => {
        try {
          forward(upstreams.inTurn(service));
        } catch {
          // reply-from's own traversal guard refuses `/..` or `../` even inside a segment (`..a`, `a../b`):
          // no id or word of the API looks like that, so it names nothing.
          notFound(request, reply);
        }
      };
      /** Sends the request on once its lane admits it: at once within the service's concurrency limit, else after a wait. */
      const admitThen = (go: () => void): void => {
        if (!admission) return go();
        const withdraw = admission.admit(service, requestClassOf(request.method), {
          enter(admitted) {
            // Once the answer has gone, or the client has gone: a 503 or 504 means the service could not keep up.
            reply.raw.once('close', () =>
              admitted.done({ dropped: reply.statusCode === 503 || reply.statusCode === 504 }),
            );
            leaveSlot = () => admitted.done({ dropped: false, reachedService: false });
            go();
          },
          refuse() {
            reply.header('retry-after', 1);
            sendProblem(request, reply, 503, 'The service is at capacity, try again shortly');
          },
        });
        // A client that goes while its request waits takes it out of the queue.
        reply.raw.once('close', withdraw);
      };
      admitThen(send);
    },
  });
}
