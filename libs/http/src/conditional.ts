import type { FastifyReply, FastifyRequest } from 'fastify';

/** Whether `If-None-Match` names `etag`: a list of tags, weak or strong, or `*` (RFC 9110 §13.1.2). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * Sends `etag` with `Cache-Control: private, no-cache`, and answers `304 Not Modified` with no body when
 * the request's `If-None-Match` names it: true when it did, and the route has nothing more to do.
 */
export async function answeredNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): Promise<boolean> {
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (!matches(request.headers['if-none-match'], etag)) return false;
  await reply.code(304).send();
  return true;
}
