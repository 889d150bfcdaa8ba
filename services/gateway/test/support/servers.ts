import { createServer } from 'node:net';
import { parseConfig } from '@recipes/config';
import { type App, dualProtocolServer } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import Fastify from 'fastify';
import { buildApp } from '../../src/app.js';
import { gatewayConfigSchema } from '../../src/config.js';

/** What an echo upstream saw of one request. */
export interface Echoed {
  server: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes, base64; null when there was none. */
  body: string | null;
}

export interface Upstream {
  name: string;
  url: string;
  /** Requests that reached the echo route (not health or docs). */
  hits: number;
  /** The most requests the echo route has held at once. */
  peakInFlight: number;
  /** Requests for its own `/health/ready`. */
  readinessChecks: number;
  /** While false, its `/health/ready` answers 503, as a service whose database is away does. */
  setReady(ready: boolean): void;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  /** Delay before answering `/api` requests. */
  delayMs?: number;
  /** Delay before answering its own `/health/ready`. */
  healthDelayMs?: number;
  /** Where it listens; any free port by default. */
  port?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A real Fastify server standing in for a service, on HTTP/1.1 and HTTP/2 as the services are: echoes every
 * request as JSON and answers its own `/health/ready`. `x-echo-status` picks
 * the response status.
 */
export async function startUpstream(
  name: string,
  { delayMs = 0, healthDelayMs = 0, port = 0 }: UpstreamOptions = {},
): Promise<Upstream> {
  const server = Fastify({ forceCloseConnections: true, serverFactory: dualProtocolServer });
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  let ready = true;
  server.get('/health/ready', async (_request, reply) => {
    upstream.readinessChecks += 1;
    if (healthDelayMs > 0) await sleep(healthDelayMs);
    return ready
      ? { status: 'ready', checks: {} }
      : reply.code(503).send({ status: 'not ready', checks: { database: 'down' } });
  });

  const upstream: Upstream = {
    name,
    url: '',
    hits: 0,
    peakInFlight: 0,
    readinessChecks: 0,
    setReady: (value) => {
      ready = value;
    },
    close: () => server.close(),
  };
  let inFlight = 0;
  server.all('*', async (request, reply) => {
    upstream.hits += 1;
    inFlight += 1;
    upstream.peakInFlight = Math.max(upstream.peakInFlight, inFlight);
    if (delayMs > 0) await sleep(delayMs).finally(() => (inFlight -= 1));
    else inFlight -= 1;
    const echoed: Echoed = {
      server: name,
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: Buffer.isBuffer(request.body) ? request.body.toString('base64') : null,
    };
    const status = Number(request.headers['x-echo-status'] ?? 200);
    // Headers a test asks the service to answer with, as JSON.
    const headers = request.headers['x-echo-headers'];
    if (typeof headers === 'string') reply.headers(JSON.parse(headers) as Record<string, string>);
    return reply.code(status).header('x-upstream', name).send(echoed);
  });
  const address = await server.listen({ host: '127.0.0.1', port });
  upstream.url = address;
  return upstream;
}

/** A plain node:http stand-in for a service: keeps every `req.url` exactly as it arrived. */
export interface Recorder {
  name: string;
  url: string;
  /** Every request target received, in order. */
  received: string[];
  close(): Promise<void>;
}

/**
 * No framework in the way, so nothing is decoded or normalised before it is recorded. Answers 200 JSON
 * `{ server, url }` to every request, over HTTP/1.1 or HTTP/2 as the services do.
 */
export async function startRecorder(name: string): Promise<Recorder> {
  const received: string[] = [];
  const server = dualProtocolServer((request, response) => {
    received.push(request.url!);
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ server: name, url: request.url }));
  }, {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An address nobody listens on: a service that is not running. */
export async function unusedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** The settings that send every service's routes to `url`. */
export const everyServiceAt = (url: string) => ({
  USERS_URL: url,
  CONTENT_URL: url,
  COMMENTS_URL: url,
  COLLECTIONS_URL: url,
  NOTIFICATIONS_URL: url,
});

/** The real gateway app, configured from `env` as in production. */
export async function startGateway(env: Record<string, string>, { listen = false } = {}): Promise<App> {
  const config = parseConfig(gatewayConfigSchema, env);
  const app = await buildApp({ config, logger: createLogger({ service: 'gateway', level: 'silent' }) });
  if (listen) await app.listen({ host: '127.0.0.1', port: 0 });
  else await app.ready();
  return app;
}

/** The gateway's own address once it listens. */
export function addressOf(app: App): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the gateway is not listening');
  return `http://127.0.0.1:${address.port}`;
}
