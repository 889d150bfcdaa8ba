import { hash } from 'node:crypto';
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
 * The entity tag of `representation` (whatever identifies the body: a version and a page, say) as
 * `callerId` sees it. Bound to the caller, so that a tag that one user's client kept never earns another
 * user a 304 (a browser where one user signs out and another signs in revalidates with the new token).
 */
export function callerTag(callerId: string, representation: string): string {
  return `"${hash('sha256', `${callerId} ${representation}`, 'base64url').slice(0, 22)}"`;
}

/**
 * Sends `etag` as a private validator (`Cache-Control: private, no-cache`, `Vary: Authorization`), and
 * answers `304 Not Modified` with no body when the request's `If-None-Match` names it: true when it did,
 * and the route has nothing more to do. `etag` must be bound to the caller (`callerTag`).
 */
export async function answeredNotModified(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
): Promise<boolean> {
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (!matches(request.headers['if-none-match'], etag)) return false;
  await reply.code(304).send();
  return true;
}
