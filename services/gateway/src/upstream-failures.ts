/** What a failure to reach an instance of a service says about sending the request to another. */
import type { FastifyRequest } from 'fastify';

/**
 * A refused connection (an instance that stopped or has not started listening) means the request never
 * reached the service: even a POST may go to another instance.
 */
export function wasRefused(error: Error): boolean {
  return codesOf(error).includes('ECONNREFUSED');
}

/**
 * A connection that broke before any answer (an instance stopping, or gone): the service may have acted
 * on the request, so only a request that acts once however often it is sent may go to another instance.
 */
export function wasCutOff(error: Error): boolean {
  return codesOf(error).some((code) => code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE');
}

/** undici's own error carries the code; reply-from's wraps it as the cause. */
export function codesOf(error: Error): unknown[] {
  return [(error as { code?: unknown }).code, (error.cause as { code?: unknown } | undefined)?.code];
}

/**
 * Sent twice, acts once: GET, HEAD, OPTIONS, PUT and DELETE by their meaning (RFC 9110 §9.2.2), a POST
 * with an `Idempotency-Key` because the service keeps its first answer and replays it.
 */
export function isIdempotent(request: FastifyRequest): boolean {
  const { method } = request;
  if (method === 'POST') return request.headers['idempotency-key'] !== undefined;
  return method !== 'PATCH';
}
