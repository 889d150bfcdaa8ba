import { createEvent, userBlocked, type UserRelation, userUnblocked } from '@recipes/contracts';
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

/**
 * Blocks, as the comments service follows them (docs/api.md §10): a blocked user cannot comment on the
 * blocker's recipes, posts or collections (403), and their comments elsewhere do not store a mention of
 * the blocker; learnt from user.blocked and user.unblocked.
 */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}_b${++counter}`;

/** `blocker`'s block of `blocked` (or its end), as the users service announces it. */
function blockEvent(blocker: { id: string }, blocked: { id: string }, on: boolean, revision: number) {
  const at = new Date().toISOString();
  const relation: UserRelation = {
    userId: blocker.id,
    targetId: blocked.id,
    muted: false,
    blocked: on,
    revision,
    changedAt: at,
    lastUnblockedAt: on ? null : at,
  };
  return createEvent(on ? userBlocked : userUnblocked, relation, { producer: 'users', correlationId: 'test-block' });
}

const post = (kind: Kind, target: string, token: string, content: string) =>
  harness.app.inject({ method: 'POST', url: commentsUrl(kind, target), payload: { content }, headers: bearer(token) });
const mentioned = async (kind: Kind, commentId: string) =>
  (await harness.mentionRows(kind, commentId)).map((row) => row.mentioned_user_id).sort();

describe.each(kinds)('a blocked user and the blocker’s %s', (kind) => {
  it('cannot comment on it or edit a comment there (403), changing nothing; others can; after the unblock they can again', async () => {
    const [blocker, blocked, other] = [
      harness.register(unique('Blocker')),
      harness.register(unique('Blocked')),
      harness.register(unique('Other')),
    ];
    const target = harness.target(kind, blocker.user.id);
    const before = await post(kind, target, blocked.token, 'before the block');
    expect(before.statusCode).toBe(201);

    await harness.deliver(blockEvent(blocker.user, blocked.user, true, 1));
    expectProblem(await post(kind, target, blocked.token, 'after the block'), 403);
    const edit = await harness.app.inject({
      method: 'PATCH',
      url: `${commentsUrl(kind, target)}/${before.json().comment.id}`,
      payload: { content: 'edited after the block' },
      headers: bearer(blocked.token),
    });
    expectProblem(edit, 403);
    expect((await post(kind, target, other.token, 'not blocked')).statusCode).toBe(201);
    const listed = (await harness.app.inject({ method: 'GET', url: commentsUrl(kind, target) })).json();
    expect(listed.comments.map((c: { content: string }) => c.content)).toEqual(['before the block', 'not blocked']);

    // Their own content stays theirs to comment on, and the blocker's comment on it is not refused.
    const theirs = harness.target(kind, blocked.user.id);
    expect((await post(kind, theirs, blocked.token, 'mine')).statusCode).toBe(201);

    await harness.deliver(blockEvent(blocker.user, blocked.user, false, 2));
    expect((await post(kind, target, blocked.token, 'after the unblock')).statusCode).toBe(201);
  });

  it('comments elsewhere, but their mention of the blocker is not stored; other mentions are', async () => {
    const [blocker, blocked, friend] = [
      harness.register(unique('Mentioned')),
      harness.register(unique('Mentioner')),
      harness.register(unique('Friend')),
    ];
    await harness.deliver(blockEvent(blocker.user, blocked.user, true, 1));
    const target = harness.target(kind);
    const response = await post(
      kind,
      target,
      blocked.token,
      `hello @${blocker.user.username} and @${friend.user.username}`,
    );
    expect(response.statusCode).toBe(201);
    const { comment } = response.json();
    expect(comment.content).toBe(`hello @${blocker.user.username} and @${friend.user.username}`);
    expect(await mentioned(kind, comment.id)).toEqual([friend.user.id]);

    // An edit mentions them no more than the comment did.
    const edited = await harness.app.inject({
      method: 'PATCH',
      url: `${commentsUrl(kind, target)}/${comment.id}`,
      payload: { content: `still @${blocker.user.username}` },
      headers: bearer(blocked.token),
    });
    expect(edited.statusCode).toBe(200);
    expect(await mentioned(kind, comment.id)).toEqual([]);

    // The blocker may still mention the one they blocked.
    const back = await post(kind, target, blocker.token, `@${blocked.user.username} hi`);
    expect(await mentioned(kind, back.json().comment.id)).toEqual([blocked.user.id]);
  });
});

it('follows the newest of a pair’s events, whatever order they come in', async () => {
  const [blocker, blocked] = [harness.register(unique('Late')), harness.register(unique('Early'))];
  const target = harness.target('recipe', blocker.user.id);
  await harness.deliver(blockEvent(blocker.user, blocked.user, false, 2));
  await harness.deliver(blockEvent(blocker.user, blocked.user, true, 1));
  expect((await post('recipe', target, blocked.token, 'unblocked since')).statusCode).toBe(201);
});
