import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type ClientHttp2Stream, constants } from 'node:http2';
import type { FastifyBaseLogger } from 'fastify';
import { type App, type LimitHook, logWhenClosedByClient, onShutdown, sendProblem } from '@recipes/http';
import { openStreamsMetric } from '@recipes/metrics';
import { type Service, streamRoutes } from '../route-table.js';
import type { UpstreamStream } from '../stream-sessions.js';
import type { Upstreams } from '../upstreams.js';
import { wasRefused } from '../upstream-failures.js';
import { routeEachRequest } from '../routed-request.js';
import { forwardedRequestHeaders, forwardedResponseHeaders } from './proxy.js';

/**
 * Streams (Server-Sent Events, docs/api.md §9) go through here rather than reply-from, multiplexed over
 * one HTTP/2 connection per instance (stream-sessions.ts): each byte is written as it comes (no buffering),
 * no timeout applies once the stream has begun (but to a client that stops reading: see `relay`), the
 * client's disconnect cancels the upstream stream at once, and on shutdown each stream ends cleanly, so
 * that the client's `EventSource` reconnects (to another instance) and resumes.
 */
export interface StreamProxyOptions {
  upstreams: Upstreams;
  /** The gateway's rate limit, when it has one. */
  limit?: LimitHook | undefined;
  stallTimeoutMs: number;
}

export default async function streamProxyPlugin(app: App, { upstreams, limit, stallTimeoutMs }: StreamProxyOptions) {
  const open = new Set<ClientHttp2Stream>();
  openStreamsMetric(app.metricsRegistry, () => open.size);
  onShutdown(app, () => {
    for (const stream of open) stream.close(constants.NGHTTP2_CANCEL);
  });
  routeEachRequest(app);

  for (const path of streamRoutes) {
    app.get(path, { schema: { hide: true }, ...(limit ? { onRequest: limit } : {}) }, async (request, reply) => {
      if (request.routed === null) return sendProblem(request, reply, 404, `No route for GET ${path}`);
      const { target, upstream: service } = request.routed;

      const targetPath = `${target.path}${target.query ? `?${target.query}` : ''}`;
      const requestHeaders = forwardedRequestHeaders(request, { ...request.headers }) as OutgoingHttpHeaders;
      const upstream = await openOnAnyInstance(upstreams, service, targetPath, requestHeaders, request.log);
      // A client that went while its stream waited for an instance never hears of it.
      if (upstream && request.raw.destroyed) {
        reply.hijack();
        upstream.body.close(constants.NGHTTP2_CANCEL);
        return;
      }
      if (!upstream) {
        reply.header('retry-after', 1);
        return sendProblem(request, reply, 503, 'The service is unavailable, try again later');
      }

      reply.hijack();
      logWhenClosedByClient(request, reply);
      const headers = {
        ...reply.getHeaders(),
        ...forwardedResponseHeaders({ ...upstream.headers }, reply),
      } as OutgoingHttpHeaders;
      // Nothing follows a stream on its connection: it closes with the stream, and never holds up a shutdown.
      headers.connection = 'close';
      reply.raw.writeHead(upstream.statusCode, headers);
      reply.raw.flushHeaders();
      relay(upstream.body, reply.raw, open, stallTimeoutMs, request.log);
    });
  }
}

/**
 * The stream opened on the first instance that takes it, each in turn. Opening a stream acts on nothing,
 * so any failure before its head moves on: a refused connection (an instance that stopped), a stream
 * refused or a session going away (an instance that is stopping sends GOAWAY, and a stream sent just
 * before it learnt of it fails), no head in time, or a 503 (an instance not taking streams). While none
 * takes it, every instance is tried again once one answers ready, until the restart wait is over (a service
 * restarting is a wait, as for any request); then what the last instance answered goes to the client, a 503
 * included.
 */
async function openOnAnyInstance(
  upstreams: Upstreams,
  service: Service,
  path: string,
  headers: OutgoingHttpHeaders,
  log: FastifyBaseLogger,
): Promise<UpstreamStream | undefined> {
  const restart = upstreams.restartWait();
  for (;;) {
    const finalRound = !restart.open;
    const bases = upstreams.inTurn(service);
    for (const [index, base] of bases.entries()) {
      const last = finalRound && index === bases.length - 1;
      try {
        const upstream = await upstreams.streams.open(base, path, headers);
        if (upstream.statusCode !== 503 || last) return upstream;
        upstream.body.close(constants.NGHTTP2_CANCEL);
        log.warn({ upstream: base }, 'stream upstream not taking streams: trying the next instance');
      } catch (error) {
        if (!wasRefused(error as Error)) log.warn({ err: error, upstream: base }, 'stream upstream unavailable');
      }
    }
    if (finalRound) return undefined;
    await upstreams.afterRestart(service, restart);
  }
}

/**
 * Hands each chunk of `body` on to `out` as it comes, for as long as both are open. A function of its own,
 * so that all an open stream keeps alive is these two, not everything its request's handler held.
 */
function relay(
  body: ClientHttp2Stream,
  out: ServerResponse,
  open: Set<ClientHttp2Stream>,
  stallTimeoutMs: number,
  log: FastifyBaseLogger,
): void {
  open.add(body);
  let stalled: NodeJS.Timeout | undefined;
  // The client went away, or was cut off: the upstream stream goes too.
  out.once('close', () => {
    clearTimeout(stalled);
    body.close(constants.NGHTTP2_CANCEL);
  });
  // A client that does not keep up holds the upstream back (HTTP/2 flow control) instead of having its
  // frames pile up here; one that takes nothing for stallTimeoutMs is cut off, and resumes as it reconnects.
  // ('drain' is listened for only then: each open stream's memory counts, the gateway holds thousands.)
  body.on('data', (chunk: Buffer) => {
    if (out.write(chunk)) return;
    body.pause();
    stalled = setTimeout(() => {
      log.warn({ stallTimeoutMs, unsentBytes: out.writableLength }, 'event stream client took nothing: cut off');
      out.destroy();
    }, stallTimeoutMs);
    out.once('drain', () => {
      clearTimeout(stalled);
      body.resume();
    });
  });
  // Ended by the service, cancelled (client gone, shutdown) or broken: the response ends as a stream ends.
  body.once('close', () => {
    open.delete(body);
    if (!out.writableEnded && !out.destroyed) out.end();
  });
}
