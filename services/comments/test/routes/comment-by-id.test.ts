import fc from 'fast-check';
import { createEvent, newId, userBlocked, type UserRelation } from '@recipes/contracts';
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
  targetDeletion,
} from '../support.js';

/**
 * `GET /api/comments/{id}` (docs/api.md §5): a comment read alone, as its target's list shows it, where a new
 * comment's `Location` leads; 404 for whatever the lists leave out.
 */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}_g${++counter}`;

interface ShownComment {
  id: string;
  content: string;
  targetType: Kind;
  targetId: string;
  parentId: string | null;
  replyCount: number;
  editedAt: string | null;
  author: { id: string; username: string };
}

const read = (id: string, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'GET', url: `/api/comments/${id}`, headers });

async function commentedWithLocation(kind: Kind, target: string, token: string, content: string, parentId?: string) {
  const response = await harness.app.inject({
    method: 'POST',
    url: commentsUrl(kind, target),
    payload: { content, ...(parentId ? { parentId } : {}) },
    headers: bearer(token),
  });
  expect(response.statusCode).toBe(201);
  return { comment: response.json().comment as ShownComment, location: response.headers.location as string };
}

const commented = async (kind: Kind, target: string, token: string, content: string, parentId?: string) =>
  (await commentedWithLocation(kind, target, token, content, parentId)).comment;

const remove = (kind: Kind, target: string, commentId: string, token: string) =>
  harness.app.inject({ method: 'DELETE', url: `${commentsUrl(kind, target)}/${commentId}`, headers: bearer(token) });

const listed = async (kind: Kind, target: string): Promise<ShownComment[]> => {
  const response = await harness.app.inject({ method: 'GET', url: `${commentsUrl(kind, target)}?limit=100` });
  return response.statusCode === 200 ? response.json().comments : [];
};

/**
 * The moment between a target's deletion reaching this service's read model and its comments being removed
 * (`removeCommentsOn` runs after the directory has remembered it): the target is gone, its comments not yet.
 */
async function targetGoneFromReadModel(kind: Kind, id: string): Promise<void> {
  // As the directories record a deletion: with no title or name (their migrations' *_deleted_keep_no_text).
  const cleared = kind === 'collection' ? "name = ''" : "title = '', cover_image_url = NULL";
  const table = kind === 'collection' ? 'known_collections' : 'content_items';
  const { rowCount } = await harness.pool.query(`UPDATE ${table} SET deleted = true, ${cleared} WHERE id = $1`, [id]);
  expect(rowCount).toBe(1);
}

describe.each(kinds)('a comment on a %s, read by its id', (kind) => {
  it('is where its Location leads: the comment as it was created, with what it is on', async () => {
    const author = harness.register(unique('Author'));
    const target = harness.target(kind);
    const { comment, location } = await commentedWithLocation(kind, target, author.token, '  Lovely tones ');
    expect(location).toBe(`/api/comments/${comment.id}`);

    const response = await harness.app.inject({ method: 'GET', url: location });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ comment });
    expect(comment).toMatchObject({
      content: 'Lovely tones',
      targetType: kind,
      targetId: target,
      parentId: null,
      replyCount: 0,
      editedAt: null,
      author: { id: author.user.id, username: author.user.username, avatarUrl: null },
    });
    // Read without a token, as the lists are; a cache may keep it per caller only.
    expect(response.headers.vary).toMatch(/authorization/i);
  });

  it('shows it as its list does: a reply with its parent, the top-level one with its replies, an edit', async () => {
    const [owner, other] = [harness.register(unique('Owner')), harness.register(unique('Other'))];
    const target = harness.target(kind, owner.user.id);
    const top = await commented(kind, target, other.token, 'A question');
    const reply = await commented(kind, target, owner.token, 'An answer', top.id);
    const edited = await harness.app.inject({
      method: 'PATCH',
      url: `${commentsUrl(kind, target)}/${reply.id}`,
      payload: { content: 'A better answer' },
      headers: bearer(owner.token),
    });
    expect(edited.statusCode).toBe(200);

    const [listedTop, listedReply] = await listed(kind, target);
    expect((await read(top.id)).json()).toEqual({ comment: listedTop });
    expect((await read(reply.id)).json()).toEqual({ comment: listedReply });
    expect(listedTop).toMatchObject({ id: top.id, parentId: null, replyCount: 1 });
    expect(listedReply).toMatchObject({
      id: reply.id,
      parentId: top.id,
      replyCount: 0,
      content: 'A better answer',
      editedAt: expect.any(String),
      targetType: kind,
      targetId: target,
    });
  });

  it('is 404 once deleted, by its author or by the owner of what it is on, for everyone', async () => {
    const [owner, author, reader] = [
      harness.register(unique('Owner')),
      harness.register(unique('Author')),
      harness.register(unique('Reader')),
    ];
    const target = harness.target(kind, owner.user.id);
    const byAuthor = await commented(kind, target, author.token, 'mine');
    const byOwner = await commented(kind, target, author.token, 'on their content');
    expect((await remove(kind, target, byAuthor.id, author.token)).statusCode).toBe(200);
    expect((await remove(kind, target, byOwner.id, owner.token)).statusCode).toBe(200);
    for (const id of [byAuthor.id, byOwner.id]) {
      for (const headers of [{}, bearer(author.token), bearer(owner.token), bearer(reader.token)]) {
        const problem = expectProblem(await read(id, headers), 404);
        expect(problem).toMatchObject({ code: 'NOT_FOUND', detail: 'Comment not found' });
      }
    }
  });

  it('is 404 for the replies of a deleted top-level comment, deleted with it', async () => {
    const author = harness.register(unique('Author'));
    const target = harness.target(kind);
    const top = await commented(kind, target, author.token, 'top');
    const reply = await commented(kind, target, author.token, 'reply', top.id);
    expect((await remove(kind, target, top.id, author.token)).statusCode).toBe(200);
    expectProblem(await read(reply.id), 404);
  });

  it('is 404 once what it is on is deleted, before its comments are removed and after', async () => {
    const [owner, author] = [harness.register(unique('Owner')), harness.register(unique('Author'))];
    const target = harness.target(kind, owner.user.id);
    const comment = await commented(kind, target, author.token, 'soon gone');
    await targetGoneFromReadModel(kind, target);
    // The list answers 404, and so does the comment, though its row is still live.
    expectProblem(await harness.app.inject({ method: 'GET', url: commentsUrl(kind, target) }), 404);
    expectProblem(await read(comment.id), 404);

    const other = harness.target(kind, owner.user.id);
    const later = await commented(kind, other, author.token, 'gone with it');
    await harness.deliver(targetDeletion(kind, other, owner.user.id));
    expectProblem(await read(later.id), 404);
  });

  it('is readable by a user the author or the owner blocks, as the list is (a block keeps one from commenting)', async () => {
    const [owner, author, blocked] = [
      harness.register(unique('Owner')),
      harness.register(unique('Author')),
      harness.register(unique('Blocked')),
    ];
    const target = harness.target(kind, owner.user.id);
    const comment = await commented(kind, target, author.token, 'visible to all');
    for (const blocker of [owner.user, author.user]) {
      const at = new Date().toISOString();
      const relation: UserRelation = {
        userId: blocker.id,
        targetId: blocked.user.id,
        muted: false,
        blocked: true,
        revision: 1,
        changedAt: at,
        lastUnblockedAt: null,
      };
      await harness.deliver(createEvent(userBlocked, relation, { producer: 'users', correlationId: 'test-block' }));
    }
    const response = await read(comment.id, bearer(blocked.token));
    expect(response.statusCode).toBe(200);
    expect(response.json().comment).toEqual((await listed(kind, target))[0]);
  });
});

describe('GET /api/comments/{id}', () => {
  it.each([
    ['an unknown id', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b'],
    ['an id that is not a UUID', 'not-a-uuid'],
    ['an id of the right length that is not a UUID', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz'],
  ])('is 404 for %s', async (_case, id) => {
    expect(expectProblem(await read(id), 404).code).toBe('NOT_FOUND');
  });

  it('finds a comment by its id in any case', async () => {
    const author = harness.register(unique('Author'));
    const comment = await commented('recipe', harness.target('recipe'), author.token, 'Upper case');
    const response = await read(comment.id.toUpperCase());
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ comment });
  });
});

describe('reading comments by id, over any history', () => {
  type Step =
    | { kind: 'comment'; target: number; author: number; replyTo: number | null }
    | { kind: 'delete'; which: number }
    | { kind: 'deleteTarget'; target: number };

  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('comment' as const),
        target: fc.nat(2),
        author: fc.nat(2),
        replyTo: fc.option(fc.nat(20), { nil: null }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), which: fc.nat(20) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteTarget' as const), target: fc.nat(2) }) },
  );

  it('answers 200 with exactly the comment its target’s list shows, and 404 for every other id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...kinds), fc.array(step, { maxLength: 14 }), async (kind, steps) => {
        const owner = harness.register(unique('Owner'));
        const authors = [owner, harness.register(unique('A')), harness.register(unique('B'))];
        const targets = [0, 1, 2].map(() => harness.target(kind, owner.user.id));
        const made: Array<{ id: string; target: string; author: (typeof authors)[number] }> = [];
        for (const next of steps) {
          if (next.kind === 'comment') {
            const target = targets[next.target]!;
            const parent = next.replyTo === null ? undefined : made[next.replyTo % Math.max(made.length, 1)];
            // A reply goes to a comment on the same target; one to a deleted one is refused (404), as is any on a
            // deleted target.
            const response = await harness.app.inject({
              method: 'POST',
              url: commentsUrl(kind, target),
              payload: { content: 'x', ...(parent && parent.target === target ? { parentId: parent.id } : {}) },
              headers: bearer(authors[next.author]!.token),
            });
            if (response.statusCode === 201)
              made.push({ id: response.json().comment.id, target, author: authors[next.author]! });
            else expect(response.statusCode).toBe(404);
          } else if (next.kind === 'delete' && made.length > 0) {
            const victim = made[next.which % made.length]!;
            expect([200, 404]).toContain((await remove(kind, victim.target, victim.id, owner.token)).statusCode);
          } else if (next.kind === 'deleteTarget') {
            await harness.deliver(targetDeletion(kind, targets[next.target]!, owner.user.id));
          }
        }
        const shown = new Map((await Promise.all(targets.map((t) => listed(kind, t)))).flat().map((c) => [c.id, c]));
        for (const id of [...made.map((comment) => comment.id), newId()]) {
          const response = await read(id);
          if (shown.has(id)) {
            expect(response.statusCode).toBe(200);
            expect(response.json()).toEqual({ comment: shown.get(id) });
          } else expectProblem(response, 404);
        }
      }),
      { numRuns: 25 },
    );
  });
});
