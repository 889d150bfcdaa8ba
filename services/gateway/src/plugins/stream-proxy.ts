import type { OutgoingHttpHeaders } from 'node:http';
import { type App, onShutdown, sendProblem } from '@recipes/http';
import { request as upstreamRequest } from 'undici';
import { readRequestPath } from '../request-path.js';
import { serviceFor, streamRoutes } from '../route-table.js';
import type { Upstreams } from '../upstreams.js';
import { forwardedRequestHeaders, wasRefused } from './proxy.js';

/** Response headers of one connection, or that the gateway sets itself. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * Streams (Server-Sent Events, docs/api.md §9.1) go through here rather than reply-from: each byte is
 * written as it comes (no buffering), no timeout applies once the stream has begun, the client's
 * disconnect aborts the upstream request at once, and on shutdown each stream ends cleanly, so that the
 * client's `EventSource` reconnects (to another instance) and resumes.
 */
export default async function streamProxyPlugin(app: App, { upstreams }: { upstreams: Upstreams }) {
  const open = new Set<AbortController>();
  onShutdown(app, () => {
    for (const stream of open) stream.abort();
  });

  for (const path of streamRoutes) {
    app.get(path, { schema: { hide: true }, config: { rateLimit: {} } }, async (request, reply) => {
      const target = readRequestPath(request.url);
      const service = target && serviceFor(target.path);
      if (!target || !service) return sendProblem(request, reply, 404, `No route for GET ${path}`);

      const stream = new AbortController();
      const requestFrom = (base: string) =>
        upstreamRequest(`${base}${target.path}${target.query ? `?${target.query}` : ''}`, {
          dispatcher: upstreams.streamAgent,
          headers: forwardedRequestHeaders(request, { ...request.headers }),
          signal: stream.signal,
        });
      let upstream: Awaited<ReturnType<typeof upstreamRequest>> | undefined;
      // Each instance in turn, moving on only while they refuse the connection (one that has stopped).
      for (const base of upstreams.inTurn(service)) {
        try {
          upstream = await requestFrom(base);
          break;
        } catch (error) {
          if (!wasRefused(error as Error)) {
            request.log.warn({ err: error }, 'stream upstream unavailable');
            break;
          }
        }
      }
      if (!upstream) return sendProblem(request, reply, 503, 'The service is unavailable, try again later');

      reply.hijack();
      const headers = { ...reply.getHeaders() } as OutgoingHttpHeaders;
      for (const [name, value] of Object.entries(upstream.headers)) if (!NOT_FORWARDED.has(name) && value !== undefined) headers[name] = value;
      // Nothing follows a stream on its connection: it closes with the stream, and never holds up a shutdown.
      headers.connection = 'close';
      reply.raw.writeHead(upstream.statusCode, headers);
      reply.raw.flushHeaders();
      open.add(stream);
      const finish = () => {
        open.delete(stream);
        if (!reply.raw.writableEnded) reply.raw.end();
      };
      // The client went away: the upstream request goes too.
      reply.raw.once('close', () => stream.abort());
      upstream.body.on('data', (chunk: Buffer) => reply.raw.write(chunk));
      upstream.body.once('end', finish);
      // Aborted (client gone, shutdown) or the upstream connection broke: the response ends as a stream ends.
      upstream.body.once('error', finish);
    });
  }
}
