import { eventually } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { withDatabase } from './support/database.js';
import { startTestSystem } from './support/system.js';
import { expectProblem, type JsonCall, jsonClient } from './support/http.js';
import { type Account, register } from './support/world.js';

/**
 * Editing and deleting comments through the gateway, with every service as its own process: the
 * notifications follow the mentions (a user newly mentioned is notified once, ever; one no longer
 * mentioned has it retracted), and a deleted comment leaves its list and its recipe's count.
 */
let system: StartedSystem;
let call: JsonCall;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_comment_edits',
    portOffset: 3700,
    env: { RATE_LIMIT_MAX: '100000' },
  });
  call = jsonClient(`${system.urlOf('gateway')}/api`);
}, 60_000);
afterAll(() => system?.stop());

interface Notification {
  id: string;
  type: string;
  commentId?: string;
}

async function notificationsOf(account: Account): Promise<{ list: Notification[]; unread: number }> {
  const list = await call<{ data: Notification[] }>('GET', '/notifications?limit=100', undefined, account.token);
  const unread = await call<{ count: number }>('GET', '/notifications/unread-count', undefined, account.token);
  return { list: list.body.data, unread: unread.body.count };
}

/** Waits until the notifications service has handled `count` mention events in all, whatever they caused. */
const mentionEventsHandled = (count: number) =>
  eventually(
    () =>
      withDatabase(system.databaseUrl, async (db) => {
        const { rows } = await db.query<{ count: number }>(
          "SELECT count(*)::int AS count FROM notifications.processed_events WHERE event_type LIKE 'comment.mention.%'",
        );
        return rows[0]!.count === count ? true : undefined;
      }),
    10_000,
    100,
  );

/** Waits until `account`'s notifications about `commentId` number `count`, and returns them all. */
const settledAt = (account: Account, commentId: string, count: number) =>
  eventually(
    async () => {
      const seen = await notificationsOf(account);
      return seen.list.filter((n) => n.commentId === commentId).length === count ? seen : undefined;
    },
    10_000,
    50,
  );

describe('comments edited and deleted through the gateway', () => {
  let ada: Account;
  let bob: Account;
  let carl: Account;
  let dan: Account;
  let recipeId: string;

  beforeAll(async () => {
    [ada, bob, carl, dan] = await Promise.all(
      ['edits_ada', 'edits_bob', 'edits_carl', 'edits_dan'].map((name) => register(call, name)),
    );
    const recipe = await call(
      'POST',
      '/recipes',
      { title: 'Edited', cameraModel: 'X100V', filmSimulation: 'Acros' },
      ada.token,
    );
    expect(recipe.status).toBe(201);
    recipeId = recipe.body.recipe.id;
  });

  const commentCount = async () => (await call('GET', `/recipes/${recipeId}`)).body.recipe.commentCount;
  const edit = (commentId: string, content: string, account = bob) =>
    call('PATCH', `/recipes/${recipeId}/comments/${commentId}`, { content }, account.token);

  it('notifies the user an edit newly mentions, once, and retracts the one it no longer mentions', async () => {
    const created = await call(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `Ask @${carl.user.username}` },
      bob.token,
    );
    expect(created.status).toBe(201);
    const commentId: string = created.body.comment.id;
    expect((await settledAt(carl, commentId, 1)).unread).toBe(1);

    const swapped = await edit(commentId, `Ask @${dan.user.username} instead`);
    expect(swapped.status).toBe(200);
    expect(swapped.body.comment).toMatchObject({
      id: commentId,
      content: `Ask @${dan.user.username} instead`,
      editedAt: expect.any(String),
    });
    expect(await settledAt(dan, commentId, 1)).toMatchObject({
      unread: 1,
      list: [{ type: 'mention_recipe_comment', commentId }],
    });
    expect(await settledAt(carl, commentId, 0)).toEqual({ list: [], unread: 0 });

    // Carl mentioned again, and dan dropped and mentioned again: nobody hears of the comment twice.
    expect((await edit(commentId, `Both: @${carl.user.username}`)).status).toBe(200);
    expect((await edit(commentId, `Both: @${carl.user.username} @${dan.user.username}`)).status).toBe(200);
    const later = await call(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `And @${carl.user.username}` },
      bob.token,
    );
    expect(later.status).toBe(201);
    // The barrier: notifications has handled every mention event so far (5 stored, 2 taken out).
    await mentionEventsHandled(7);
    expect((await notificationsOf(carl)).list.map((n) => n.commentId)).toEqual([later.body.comment.id]);
    expect(await notificationsOf(dan)).toEqual({ list: [], unread: 0 });

    const listed = await call('GET', `/recipes/${recipeId}/comments`);
    expect(
      listed.body.comments.map((c: { id: string; editedAt: string | null }) => [c.id, c.editedAt !== null]),
    ).toEqual([
      [commentId, true],
      [later.body.comment.id, false],
    ]);
    // Only the author edits.
    expectProblem((await edit(commentId, 'mine now', ada)).raw, 403);
  });

  it('lets the recipe’s owner delete a comment: it leaves the list and the count, and its mentions are retracted', async () => {
    const created = await call(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `Look @${dan.user.username}` },
      bob.token,
    );
    const commentId: string = created.body.comment.id;
    await settledAt(dan, commentId, 1);
    await eventually(async () => ((await commentCount()) === 3 ? true : undefined), 10_000, 50);

    expectProblem((await call('DELETE', `/recipes/${recipeId}/comments/${commentId}`, undefined, carl.token)).raw, 403);
    const deleted = await call('DELETE', `/recipes/${recipeId}/comments/${commentId}`, undefined, ada.token);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Comment deleted' });

    expect(await settledAt(dan, commentId, 0)).toMatchObject({ unread: 0 });
    await eventually(async () => ((await commentCount()) === 2 ? true : undefined), 10_000, 50);
    const listed = await call('GET', `/recipes/${recipeId}/comments`);
    expect(listed.body.total).toBe(2);
    expect(listed.body.comments.map((c: { id: string }) => c.id)).not.toContain(commentId);
    expectProblem((await call('DELETE', `/recipes/${recipeId}/comments/${commentId}`, undefined, ada.token)).raw, 404);
  });
});
