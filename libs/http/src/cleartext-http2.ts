import {
  createServer as createHttp1Server,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';

/** How an HTTP/2 connection without TLS begins (RFC 9113 §3.4): no HTTP/1.1 request begins so. */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * Streams one connection may carry, and the memory its session may take: a gateway multiplexes every
 * event stream it holds to one instance over one connection, where Node's defaults (100 streams as the
 * client assumes them, 10 MB a session) would refuse them after the first hundreds or thousands.
 */
export const HTTP2_SESSION_SETTINGS = { maxConcurrentStreams: 100_000 } as const;
export const HTTP2_MAX_SESSION_MEMORY_MB = 64;

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** The HTTP/2 sessions a server holds, closed by `closeHttp2Sessions` (Fastify calls it as the app closes). */
export interface DualProtocolServer extends Server {
  closeHttp2Sessions(): void;
}

/**
 * Fastify's `serverFactory` for a port that speaks HTTP/1.1 and also HTTP/2 with prior knowledge (h2c):
 * the first bytes of each connection tell which. The gateway carries the event streams it proxies over
 * one such connection per instance instead of a socket each (see its stream proxy); everyone else
 * speaks HTTP/1.1 as before, on the same address, with the same timeouts Fastify would set. Only a
 * service that serves streams uses it (`servesStreams` in libs/runtime's definition).
 *
 * Node has no h2c fallback to HTTP/1.1 (`allowHTTP1` needs TLS), so the HTTP/1.1 server's own connection
 * listener is taken and called for the connections that are not HTTP/2.
 */
export function dualProtocolServer(
  handler: RequestHandler,
  options: FastifyServerOptions & { http?: ServerOptions },
): DualProtocolServer {
  const http1 = createHttp1Server(options.http ?? {}, handler) as DualProtocolServer;
  http1.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
  http1.requestTimeout = options.requestTimeout ?? 0;
  http1.setTimeout(options.connectionTimeout ?? 0);

  const http2 = createHttp2Server(
    { settings: HTTP2_SESSION_SETTINGS, maxSessionMemory: HTTP2_MAX_SESSION_MEMORY_MB },
    handler as never,
  );
  const sessions = new Set<Http2Session>();
  /** Connections whose first bytes have not yet said which protocol they speak: idle, to whoever closes idle ones. */
  const undecided = new Set<Socket>();
  let closing = false;
  http2.on('session', (session: Http2Session) => {
    // A session that begins as the server closes is told at once to take no new stream.
    if (closing) session.close();
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // A GOAWAY: each session finishes its open streams, takes no new one and then closes its connection;
  // its client opens the next stream on a new connection (to another instance, once this one stops listening).
  http1.closeHttp2Sessions = () => {
    closing = true;
    for (const session of sessions) session.close();
  };
  const closeIdleHttp1 = http1.closeIdleConnections.bind(http1);
  const closeAllHttp1 = http1.closeAllConnections.bind(http1);
  http1.closeIdleConnections = () => {
    for (const socket of undecided) socket.destroy();
    closeIdleHttp1();
  };
  http1.closeAllConnections = () => {
    for (const socket of undecided) socket.destroy();
    for (const session of sessions) session.destroy();
    closeAllHttp1();
  };

  const connectionListeners = http1.listeners('connection') as ((socket: Socket) => void)[];
  if (connectionListeners.length !== 1)
    throw new Error('expected Node’s HTTP/1.1 server to have its one connection listener');
  const [serveHttp1] = connectionListeners as [(socket: Socket) => void];
  http1.removeListener('connection', serveHttp1);
  http1.on('connection', (socket: Socket) => {
    let head: Buffer = Buffer.alloc(0);
    undecided.add(socket);
    socket.once('close', () => undecided.delete(socket));
    const drop = () => socket.destroy();
    // A connection that sends nothing is closed as Node would close an HTTP/1.1 one that sends no headers.
    socket.setTimeout(http1.headersTimeout);
    socket.once('timeout', drop);
    socket.on('error', drop);
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const compared = Math.min(head.length, PREFACE.length);
      const isPrefaceSoFar = head.subarray(0, compared).equals(PREFACE.subarray(0, compared));
      if (isPrefaceSoFar && compared < PREFACE.length) return;
      undecided.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('error', drop);
      socket.removeListener('timeout', drop);
      socket.setTimeout(0);
      socket.pause();
      // Handed back, to be read by whichever protocol takes the connection.
      socket.unshift(head);
      if (isPrefaceSoFar) http2.emit('connection', socket);
      else {
        serveHttp1.call(http1, socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  });
  return http1;
}
