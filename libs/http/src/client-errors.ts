import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { problem, PROBLEM_CONTENT_TYPE } from './problem.js';
import { REQUEST_ID_HEADER } from './request-id.js';

const statusFor: Record<string, number> = { ERR_HTTP_REQUEST_TIMEOUT: 408, HPE_HEADER_OVERFLOW: 431 };
const detailFor: Record<number, string> = {
  400: 'The request is not valid HTTP',
  408: 'The request took too long to arrive',
  414: 'The request URL is too long',
  431: 'The request headers are too large',
};

/**
 * Node's parser says only that the head (request line and headers) is over its size limit. When the request
 * line alone does not fit (Node's `maxHeaderSize`), no header is to blame: the URL is too long (414, `URI_TOO_LONG`),
 * not the headers (431).
 */
function statusOf(error: Error & { code?: string; rawPacket?: unknown }): number {
  const status = statusFor[error.code ?? ''] ?? 400;
  if (status !== 431 || !Buffer.isBuffer(error.rawPacket)) return status;
  const lineEnd = error.rawPacket.indexOf('\r\n');
  return lineEnd === -1 || lineEnd >= maxHeaderSize ? 414 : status;
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before Fastify sees it (bytes in the
 * request line that HTTP does not allow, headers over the size limit, a request that never finishes) is
 * answered with problem+json like every other error, instead of Fastify's own JSON; then the connection closes.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Duplex,
): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = statusOf(error);
  const requestId = randomUUID();
  const body = JSON.stringify(problem(status, detailFor[status]!, { instance: '', requestId }));
  // Not the error itself: its `rawPacket` is the request as sent, URL (a stream ticket) and headers included.
  this.log.debug({ code: error.code, reason: error.message, requestId }, 'refused a request that is not valid HTTP');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
