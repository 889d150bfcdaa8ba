import { createEvent, newId, userBlocked } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  expectProblem,
  generousLimits,
  type Kind,
  kinds,
} from '../support.js';

/** Replies (docs/api.md §11.4): where they go, what they count, how they list, and what deleting a thread takes. */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}_r${++counter}`;

interface ShownComment {
  id: string;
  parentId: string | null;
  replyCount: number;
  author: { id: string };
}

const post = (kind: Kind, target: string, token: string, payload: object, requestId = newId()) =>
  harness.app.inject({
    method: 'POST',
    url: commentsUrl(kind, target),
    payload,
    headers: { ...bearer(token), 'x-request-id': requestId },
  });

async function commented(
  kind: Kind,
  target: string,
  token: string,
  content: string,
  parentId?: string,
  requestId = newId(),
): Promise<ShownComment> {
  const response = await post(kind, target, token, { content, ...(parentId ? { parentId } : {}) }, requestId);
  expect(response.statusCode).toBe(201);
  return response.json().comment;
}

const remove = (kind: Kind, target: string, commentId: string, token: string, requestId = newId()) =>
  harness.app.inject({
    method: 'DELETE',
    url: `${commentsUrl(kind, target)}/${commentId}`,
    headers: { ...bearer(token), 'x-request-id': requestId },
  });
const list = async (kind: Kind, target: string, query = '') =>
  (await harness.app.inject({ method: 'GET', url: `${commentsUrl(kind, target)}${query}` })).json();
const replies = (commentId: string, query = '') =>
  harness.app.inject({ method: 'GET', url: `/api/comments/${commentId}/replies${query}` });
const eventsOf = async (correlationId: string, type: string) =>
  (await harness.outboxEvents(correlationId, type)).map((event) => event.data);

describe.each(kinds)('replies on a %s', (kind) => {
  it('stores a reply under its comment, and a reply to a reply under the top-level one, announcing who to tell', async () => {
    const [owner, first, second, mentioned] = [unique('Owner'), unique('First'), unique('Second'), unique('Named')].map(
      (name) => harness.register(name),
    );
    const target = harness.target(kind, owner!.user.id);
    const top = await commented(kind, target, first!.token, 'A question');
    expect(top).toMatchObject({ parentId: null, replyCount: 0 });

    const answer = await commented(kind, target, owner!.token, 'An answer', top.id);
    expect(answer).toMatchObject({ parentId: top.id, replyCount: 0 });
    const requestId = newId();
    const deeper = await commented(
      kind,
      target,
      second!.token,
      `Thanks @${mentioned!.user.username}`,
      answer.id,
      requestId,
    );
    expect(deeper).toMatchObject({ parentId: top.id, replyCount: 0 });
    // It remembers whom it answered, for the audits of what it notified.
    const { rows } = await harness.pool.query('SELECT replied_to_id FROM comments WHERE id = $1', [deeper.id]);
    expect(rows).toEqual([{ replied_to_id: answer.id }]);
    expect(await eventsOf(requestId, 'comment.created')).toEqual([
      expect.objectContaining({
        id: deeper.id,
        parentId: top.id,
        targetOwnerId: owner!.user.id,
        repliedToAuthorId: owner!.user.id,
        mentionedUserIds: [mentioned!.user.id],
      }),
    ]);

    const { comments, total } = await list(kind, target);
    expect(total).toBe(3);
    expect(comments.map((comment: ShownComment) => [comment.id, comment.parentId, comment.replyCount])).toEqual([
      [top.id, null, 2],
      [answer.id, top.id, 0],
      [deeper.id, top.id, 0],
    ]);
    const topLevel = await list(kind, target, '?topLevel=true');
    expect(topLevel.total).toBe(1);
    expect(topLevel.pagination.total).toBe(1);
    expect(topLevel.comments.map((comment: ShownComment) => comment.id)).toEqual([top.id]);
  });

  it('announces a top-level comment with its target owner and no parent', async () => {
    const [owner, author] = [harness.register(unique('Owner')), harness.register(unique('Author'))];
    const target = harness.target(kind, owner.user.id);
    const requestId = newId();
    const comment = await commented(kind, target, author.token, 'Nice', undefined, requestId);
    expect(await eventsOf(requestId, 'comment.created')).toEqual([
      expect.objectContaining({
        id: comment.id,
        parentId: null,
        targetOwnerId: owner.user.id,
        repliedToAuthorId: null,
        mentionedUserIds: [],
      }),
    ]);
  });

  it('answers 404 for a parent that is no live comment of that target, and stores nothing', async () => {
    const author = harness.register(unique('Author'));
    const [target, elsewhere] = [harness.target(kind), harness.target(kind)];
    const other = await commented(kind, elsewhere, author.token, 'Elsewhere');
    const gone = await commented(kind, target, author.token, 'Gone soon');
    expect((await remove(kind, target, gone.id, author.token)).statusCode).toBe(200);
    for (const parentId of [other.id, gone.id, newId(), 'not-a-uuid']) {
      expectProblem(await post(kind, target, author.token, { content: 'Reply', parentId }), 404);
    }
    expect((await list(kind, target)).total).toBe(0);
    expectProblem(await post(kind, target, author.token, { content: 'Reply', parentId: 42 }), 400);
  });

  it('deletes a thread with its replies, retracting their mentions, and a reply alone off its count', async () => {
    const [owner, author, replier, named] = [unique('Owner'), unique('Author'), unique('Replier'), unique('Named')].map(
      (name) => harness.register(name),
    );
    const target = harness.target(kind, owner!.user.id);
    const top = await commented(kind, target, author!.token, 'Top');
    const kept = await commented(kind, target, replier!.token, `Hi @${named!.user.username}`, top.id);
    const dropped = await commented(kind, target, replier!.token, 'Second', top.id);
    expect((await remove(kind, target, dropped.id, replier!.token)).statusCode).toBe(200);
    expect((await list(kind, target)).comments[0].replyCount).toBe(1);

    const requestId = newId();
    expect((await remove(kind, target, top.id, owner!.token, requestId)).statusCode).toBe(200);
    expect(await list(kind, target)).toMatchObject({ comments: [], total: 0 });
    expect((await eventsOf(requestId, 'comment.deleted')).map((data) => data.id).sort()).toEqual(
      [top.id, kept.id].sort(),
    );
    expect(await eventsOf(requestId, 'comment.mention.deleted')).toEqual([
      expect.objectContaining({ commentId: kept.id, mentionedUserId: named!.user.id }),
    ]);
    expect(await harness.mentionRows(kind, kept.id)).toEqual([]);
    expectProblem(await replies(top.id), 404);
    expectProblem(await post(kind, target, author!.token, { content: 'Too late', parentId: kept.id }), 404);
  });
});

describe('the check order of a reply', () => {
  it('answers a missing parent (404) before the owner’s block (403), and a blocked reply with 403', async () => {
    const [owner, blocked] = [harness.register(unique('Blocker')), harness.register(unique('Blocked'))];
    const target = harness.target('recipe', owner.user.id);
    const top = await commented('recipe', target, owner.token, 'Mine');
    const at = new Date().toISOString();
    const relation = {
      userId: owner.user.id,
      targetId: blocked.user.id,
      muted: false,
      blocked: true,
      revision: 1,
      changedAt: at,
      lastUnblockedAt: null,
    };
    await harness.deliver(createEvent(userBlocked, relation, { producer: 'users', correlationId: 'test-block' }));
    expectProblem(await post('recipe', target, blocked.token, { content: 'Reply', parentId: newId() }), 404);
    expectProblem(await post('recipe', target, blocked.token, { content: 'Reply', parentId: top.id }), 403);
  });
});

describe('replyCount under concurrency', () => {
  it('equals the replies listed after parallel replies and deletions', async () => {
    const owner = harness.register(unique('Owner'));
    const repliers = Array.from({ length: 6 }, () => harness.register(unique('Replier')));
    const target = harness.target('recipe', owner.user.id);
    const top = await commented('recipe', target, owner.token, 'Top');
    const early = await Promise.all(
      repliers.map((replier) => commented('recipe', target, replier.token, 'Early', top.id)),
    );
    // Half of the early replies go while as many new ones come, some to a reply that is going.
    const results = await Promise.all([
      ...early
        .filter((_, index) => index % 2 === 0)
        .map((reply, index) => remove('recipe', target, reply.id, repliers[index * 2]!.token)),
      ...repliers.map((replier, index) =>
        post('recipe', target, replier.token, { content: 'Late', parentId: early[index]!.id }),
      ),
    ]);
    expect(results.every((response) => [200, 201, 404].includes(response.statusCode))).toBe(true);

    const listed = (await replies(top.id, '?limit=100')).json();
    const { comments } = await list('recipe', target, '?topLevel=true');
    expect(comments[0].replyCount).toBe(listed.comments.length);
    expect(listed.pagination.total).toBe(listed.comments.length);
    const { rows } = await harness.pool.query(
      'SELECT count(*)::int AS n FROM comments WHERE parent_id = $1 AND deleted_at IS NULL',
      [top.id],
    );
    expect(rows[0].n).toBe(listed.comments.length);
  });
});

describe('GET /api/comments/{id}/replies', () => {
  it('pages by number and by cursor, oldest first, with Link headers, default limit 20', async () => {
    const author = harness.register(unique('Author'));
    const target = harness.target('post');
    const top = await commented('post', target, author.token, 'Top');
    const made: string[] = [];
    for (let index = 0; index < 23; index++)
      made.push((await commented('post', target, author.token, `Reply ${index}`, top.id)).id);

    const first = await replies(top.id);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.comments.map((comment: ShownComment) => comment.id)).toEqual(made.slice(0, 20));
    expect(body.pagination).toMatchObject({ page: 1, limit: 20, total: 23, totalPages: 2 });
    expect(first.headers.link).toContain('rel="next"');
    expect(first.headers.link).toContain('rel="last"');

    const second = await replies(top.id, `?cursor=${body.pagination.nextCursor}`);
    expect(second.json().comments.map((comment: ShownComment) => comment.id)).toEqual(made.slice(20));
    expect(second.json().pagination.nextCursor).toBeNull();
    expect(
      (await replies(top.id, '?page=2&limit=10')).json().comments.map((comment: ShownComment) => comment.id),
    ).toEqual(made.slice(10, 20));

    // A reply has no replies of its own.
    expect((await replies(made[0]!)).json()).toMatchObject({ comments: [], pagination: { total: 0 } });
  });

  it('answers 404 for an unknown or malformed id, and 400 for a bad cursor or page', async () => {
    expectProblem(await replies(newId()), 404);
    expectProblem(await replies('nope'), 404);
    const author = harness.register(unique('Author'));
    const top = await commented('recipe', harness.target('recipe'), author.token, 'Top');
    expectProblem(await replies(top.id, '?cursor=forged'), 400);
    expectProblem(await replies(top.id, '?page=0'), 400);
  });
});
