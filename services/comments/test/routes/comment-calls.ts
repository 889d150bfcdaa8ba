import { newId } from '@recipes/contracts';
import { expect } from 'vitest';
import { bearer, type CommentsHarness, commentsUrl, type Kind } from '../support.js';

/**
 * The comment routes as a client calls them, on the harness a test file sets up (read when called, as it is
 * made in its `beforeAll`), and usernames no other test of the file uses.
 */
export function commentCalls(harnessOf: () => CommentsHarness) {
  let counter = 0;
  const post = (kind: Kind, id: string, payload: unknown, headers: Record<string, string> = {}) =>
    harnessOf().app.inject({ method: 'POST', url: commentsUrl(kind, id), payload: payload as object, headers });
  return {
    /** A username no other test uses. */
    unique: (prefix: string) => `${prefix}_${++counter}`,
    post,
    get: (kind: Kind, id: string, query = '') =>
      harnessOf().app.inject({ method: 'GET', url: `${commentsUrl(kind, id)}${query}` }),
    /** A comment posted by the holder of `token`, which must be created (201). */
    async commented(kind: Kind, id: string, token: string, content: string, requestId = newId()) {
      const response = await post(kind, id, { content }, { ...bearer(token), 'x-request-id': requestId });
      expect(response.statusCode).toBe(201);
      return response.json().comment as { id: string; content: string; createdAt: string; author: { id: string } };
    },
  };
}
