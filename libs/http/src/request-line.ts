import type { Logger } from '@recipes/logging';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The one line each request leaves in the log, written as it completes. The logger's `req` serializer
 * (@recipes/logging) leaves out of the URL every query value that may be a credential (a stream ticket).
 */
export function logRequestCompleted(request: FastifyRequest, reply: FastifyReply, closedByClient = false): void {
  request.log.info(
    {
      req: { method: request.method, url: request.url, remoteAddress: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
      ...(closedByClient ? { closedByClient } : {}),
    },
    'request completed',
  );
}

/**
 * For a response that stays open (an event stream, its reply hijacked): one its client closes never
 * finishes, so `onResponse` does not write its line, and this does.
 */
export function logWhenClosedByClient(request: FastifyRequest, reply: FastifyReply): void {
  if (!(request.log as Logger).isLevelEnabled('info')) return;
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) logRequestCompleted(request, reply, true);
  });
}
