import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import type { App } from './app.js';
import type { DualProtocolServer } from './cleartext-http2.js';
import { stopTaking } from './not-taken.js';

export interface ListenSettings {
  host: string;
  port: number;
  /** Where the app's metrics listener (see @recipes/metrics) serves `/metrics`; never the public port. */
  metricsPort?: number;
  /** Where the app's internal routes (see `internalApp`) listen, when it has them; never the public port. */
  internalPort?: number;
  /** How long in-flight requests and handlers get to finish before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** After the signal, how long at most to keep answering with `connection: close` before the listener stops. */
  drainMs?: number;
  /**
   * After the signal and before the listener stops, how long to keep listening while answering every new request
   * with a 503 marked not taken (`stopTaking`), so that a proxy learns the instance is going and sends elsewhere;
   * none by default (the gateway, which no proxy of ours stands in front of, keeps serving to the end).
   */
  stopNoticeMs?: number;
}

/**
 * Longer than a proxy keeps an idle connection open (the gateway: 2 s, see its `Upstreams`), so that by the
 * end no connection it might reuse is left for the server to close.
 */
const DEFAULT_DRAIN_MS = 3_000;

/**
 * What to do first when shutdown starts, per server: e.g. end the streams it holds so their clients reconnect
 * elsewhere.
 */
const shutdownHooks = new WeakMap<Server, (() => void)[]>();

/**
 * Runs `hook` as soon as shutdown starts (before open connections are waited for: a stream would keep its
 * connection open to the end), and in any case as the app closes. `hook` must tolerate a second call.
 */
export function onShutdown(app: App, hook: () => void): void {
  const hooks = shutdownHooks.get(app.server) ?? [];
  hooks.push(hook);
  shutdownHooks.set(app.server, hooks);
  app.addHook('preClose', async () => hook());
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));
}

/**
 * Stops accepting connections but lets the open ones end by themselves: each response closes its
 * connection, and a proxy closes its idle ones itself. Resolves once none is left, or after `drainMs`.
 *
 * `server.close()` would also close the idle keep-alive connections at once, and a proxy may be sending a
 * request on one at that very moment: it sees the connection reset, cannot tell whether the request was
 * handled, and must fail it. A refused new connection, though, it may safely send to another instance.
 */
export async function drainConnections(server: Server, drainMs: number): Promise<void> {
  // Prepended: it runs before the app may have answered.
  server.prependListener('request', (_request, response) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  });
  // The plain TCP close: stops listening, leaves the connections (the later app.close() tolerates it).
  NetServer.prototype.close.call(server);
  const deadline = Date.now() + drainMs;
  while (Date.now() < deadline && (await openConnections(server)) > 0) await sleep(50);
}

/**
 * Listens, and on SIGTERM/SIGINT closes gracefully: open connections drain, the server stops accepting,
 * in-flight requests finish, then the app's onClose hooks stop consumers and relays and close pools.
 */
export async function listen(
  app: App,
  {
    host,
    port,
    metricsPort,
    internalPort,
    shutdownTimeoutMs,
    drainMs = DEFAULT_DRAIN_MS,
    stopNoticeMs = 0,
  }: ListenSettings,
): Promise<void> {
  const internal = internalPort === undefined ? undefined : app.internalServer;
  closeWithGrace({ delay: shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an unexpected error');
    else {
      app.log.info({ signal }, 'shutting down');
      for (const hook of shutdownHooks.get(app.server) ?? []) hook();
      // Its HTTP/2 sessions take no new stream from now on (GOAWAY), so that their clients open the next elsewhere.
      (app.server as Partial<DualProtocolServer>).closeHttp2Sessions?.();
      if (stopNoticeMs > 0) {
        for (const taker of [app, internal]) if (taker) stopTaking(taker);
        await sleep(stopNoticeMs);
      }
      await Promise.all([
        drainConnections(app.server, drainMs),
        internal && drainConnections(internal.server, drainMs),
      ]);
    }
    await app.close();
  });
  await app.listen({ host, port });
  // After the app, so that a port already taken fails through the graceful shutdown above.
  if (internal) await internal.listen({ host, port: internalPort });
  if (metricsPort !== undefined) await app.metricsServer.listen({ host, port: metricsPort });
}
