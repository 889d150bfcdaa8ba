import { type EventStreamClient, openEventStream, type StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { unlimited } from './faults/support.js';
import { withDatabase } from './support/database.js';
import { eventTap } from './support/event-tap.js';
import { type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem, type TestSystem } from './support/system.js';
import { type Account, create, register } from './support/world.js';

/**
 * One hostile user through the gateway, with every service as its own process (issue 38): what they
 * make others see must go away with what caused it. A mention edited away or deleted, a tag on a post
 * deleted, a comment racing its recipe's deletion: each leaves the victim's list, their unread count and
 * their open stream (`event: retracted`, then `event: unread_count`), so that in the end nothing visible
 * points at what no longer exists. The other limits are tested where they live: spoofed client
 * addresses in test/limits.test.ts, deep bodies with an Idempotency-Key in test/fuzz.test.ts.
 */
const NAME = 'recipes_abuse';
let system: TestSystem;
let call: JsonCall;
let tap: Awaited<ReturnType<typeof eventTap>>;
/** Every event the system published while the tap listened: its envelope's id, type and data. */
const published: { id: string; type: string; data: Record<string, string> }[] = [];
const streams: EventStreamClient[] = [];

beforeAll(async () => {
  system = await startTestSystem({ name: NAME, portOffset: 5100, env: { ...unlimited, DATABASE_POOL_MAX: '4' } });
  call = jsonClient(`${system.urlOf('gateway')}/api`);
  tap = await eventTap(inject('amqpUrl'), `recipes.${NAME}`, ({ content }) => published.push(JSON.parse(content)));
}, 90_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await tap?.close();
  await system?.stop();
});

interface Notification {
  id: string;
  type: string;
  contentId: string;
  commentId?: string;
}

async function notificationsOf(account: Account): Promise<{ list: Notification[]; unread: number }> {
  const list = await call<{ data: Notification[] }>('GET', '/notifications?limit=100', undefined, account.token);
  const unread = await call<{ count: number }>('GET', '/notifications/unread-count', undefined, account.token);
  return { list: list.body.data, unread: unread.body.count };
}

/** `account`'s stream, once it has said their unread count. */
async function watch(account: Account): Promise<EventStreamClient> {
  const stream = await openEventStream(`${system.urlOf('gateway')}/api/notifications/stream`, {
    authorization: `Bearer ${account.token}`,
  });
  streams.push(stream);
  expect(stream.status).toBe(200);
  await stream.next((event) => event.event === 'unread_count');
  return stream;
}

const isUnread = (count: number) => (event: StreamEvent) =>
  event.event === 'unread_count' && JSON.parse(event.data).count === count;

/**
 * Runs `cause` and resolves with the notification it sent to `stream`, once the stream has said the unread count
 * `unread`.
 */
async function notifiedBy(
  stream: EventStreamClient,
  unread: number,
  cause: () => Promise<unknown>,
): Promise<Notification> {
  const from = stream.received.length;
  await cause();
  const event = await stream.next((e) => e.event === 'notification', 5_000, from);
  await stream.next(isUnread(unread), 5_000, stream.received.indexOf(event) + 1);
  return JSON.parse(event.data) as Notification;
}

/**
 * Runs `cause`, then expects `stream` to say `event: retracted` for `notification` and, after it, the unread count
 * `unread`.
 */
async function retractedBy(
  stream: EventStreamClient,
  notification: Notification,
  unread: number,
  cause: () => Promise<unknown>,
): Promise<void> {
  const from = stream.received.length;
  await cause();
  const retracted = await stream.next((e) => e.event === 'retracted', 5_000, from);
  expect(JSON.parse(retracted.data)).toEqual({ id: notification.id });
  // A retraction has no id of its own (docs/api.md §9).
  expect(retracted.id).toBeUndefined();
  await stream.next(isUnread(unread), 5_000, stream.received.indexOf(retracted) + 1);
}

describe('one hostile user against the notifications of others', () => {
  let mal: Account;

  beforeAll(async () => {
    mal = await register(call, 'abuse_mal');
  });

  /** A user of their own for each test, watching their notifications. */
  async function victim(name: string): Promise<{ bob: Account; stream: EventStreamClient }> {
    const bob = await register(call, `abuse_${name}`);
    return { bob, stream: await watch(bob) };
  }

  it('takes back a mention edited away, and one deleted, from the open stream, the list and the count', async () => {
    const { bob, stream } = await victim('edited');
    const recipe = await create(
      call,
      '/recipes',
      { title: 'Bait', cameraModel: 'X100V', filmSimulation: 'Acros' },
      mal,
      'recipe',
    );
    const comments = `/recipes/${recipe.id}/comments`;
    for (const takeBack of ['edit', 'delete'] as const) {
      const comment = { id: '' };
      const mention = await notifiedBy(stream, 1, async () => {
        comment.id = (await create(call, comments, { content: `@${bob.user.username} look` }, mal, 'comment')).id;
      });
      expect(mention).toMatchObject({ type: 'mention_recipe_comment', commentId: comment.id });
      expect(await notificationsOf(bob)).toMatchObject({ list: [{ id: mention.id }], unread: 1 });

      await retractedBy(stream, mention, 0, async () => {
        const response =
          takeBack === 'edit'
            ? await call('PATCH', `${comments}/${comment.id}`, { content: 'never mind' }, mal.token)
            : await call('DELETE', `${comments}/${comment.id}`, undefined, mal.token);
        expect(response.status, `${takeBack}: ${JSON.stringify(response.body)}`).toBe(200);
      });
      expect(await notificationsOf(bob), takeBack).toEqual({ list: [], unread: 0 });
    }
  });

  it('takes back the tag of a deleted post from the open stream, the list and the count', async () => {
    const { bob, stream } = await victim('tagged');
    const post = { id: '' };
    const tag = await notifiedBy(stream, 1, async () => {
      post.id = (
        await create(call, '/posts', { title: 'Tagged', taggedUsernames: [bob.user.username] }, mal, 'post')
      ).id;
    });
    expect(tag).toMatchObject({ type: 'tag_post', contentId: post.id });

    await retractedBy(stream, tag, 0, async () =>
      expect((await call('DELETE', `/posts/${post.id}`, undefined, mal.token)).status).toBe(200),
    );
    expect(await notificationsOf(bob)).toEqual({ list: [], unread: 0 });
    expect((await call('GET', `/posts/${post.id}`)).status).toBe(404);
  });

  it('leaves nothing of a comment that races its recipe’s deletion', async () => {
    const { bob, stream } = await victim('raced');
    const RACES = 6;
    const races = [];
    for (let i = 0; i < RACES; i += 1) {
      const recipe = await create(
        call,
        '/recipes',
        { title: `Doomed ${i}`, cameraModel: 'X-T5', filmSimulation: 'Provia' },
        mal,
        'recipe',
      );
      const comment = () =>
        call('POST', `/recipes/${recipe.id}/comments`, { content: `@${bob.user.username} quick` }, mal.token);
      const deletion = () => call('DELETE', `/recipes/${recipe.id}`, undefined, mal.token);
      // Both at once, one or the other sent first.
      const [commented, deleted] =
        i % 2 === 0
          ? await Promise.all([comment(), deletion()])
          : (await Promise.all([deletion(), comment()])).reverse();
      expect(deleted!.status).toBe(200);
      expect([201, 404], JSON.stringify(commented!.body)).toContain(commented!.status);
      races.push({
        recipeId: recipe.id,
        commentId: commented!.status === 201 ? (commented!.body.comment.id as string) : undefined,
      });
    }
    const accepted = races.flatMap((race) => (race.commentId ? [race.commentId] : []));
    console.log(
      `comments racing their recipe's deletion: ${accepted.length} of ${RACES} accepted, ${RACES - accepted.length} refused`,
    );

    // The barrier: every event the races caused has been published and handled by those it concerns.
    const unsettled = await untilHandled(
      races.map((race) => race.recipeId),
      accepted,
    );

    await withDatabase(system.databaseUrl, async (db) => {
      const { rows } = await db.query(
        'SELECT id FROM comments.comments WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL',
        [accepted],
      );
      expect(rows, 'comments left on deleted recipes').toEqual([]);
    });
    for (const race of races) expect((await call('GET', `/recipes/${race.recipeId}/comments`)).status).toBe(404);
    expect(await notificationsOf(bob)).toEqual({ list: [], unread: 0 });
    // Whatever the stream said meanwhile, it comes to where the count is.
    const counts = stream.received.flatMap((event, index) =>
      event.event === 'unread_count' ? [{ index, count: JSON.parse(event.data).count }] : [],
    );
    if (counts.at(-1)!.count !== 0) await stream.next(isUnread(0), 5_000, counts.at(-1)!.index + 1);
    expect(unsettled, 'the races did not settle within 15 s').toEqual([]);
  });
});

/**
 * Waits until each recipe's deletion has been handled by comments and notifications, and each accepted
 * comment's mention has been both made and taken back, each event handled by notifications. Resolves
 * with what is still missing after 15 s (nothing, once it settled), for the test to show what is left visible first.
 */
async function untilHandled(recipeIds: string[], commentIds: string[]): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const pending = await withDatabase(system.databaseUrl, async (db) => {
      const handled = async (schema: string, ids: string[]) =>
        new Set(
          (
            await db.query<{ id: string }>(
              `SELECT event_id::text AS id FROM ${schema}.processed_events WHERE event_id = ANY($1::uuid[])`,
              [ids],
            )
          ).rows.map((r) => r.id),
        );
      const deletions = published.filter(
        (event) => event.type === 'recipe.deleted' && recipeIds.includes(event.data.id!),
      );
      const mentions = (type: string) =>
        published.filter((event) => event.type === type && commentIds.includes(event.data.commentId!));
      const [made, takenBack] = [mentions('comment.mention.created'), mentions('comment.mention.deleted')];
      const [inComments, inNotifications] = [
        await handled(
          'comments',
          deletions.map((e) => e.id),
        ),
        await handled(
          'notifications',
          [...deletions, ...made, ...takenBack].map((e) => e.id),
        ),
      ];
      const missing: string[] = [];
      if (deletions.length < recipeIds.length)
        missing.push(`${recipeIds.length - deletions.length} recipe.deleted not published`);
      if (made.length < commentIds.length)
        missing.push(`${commentIds.length - made.length} comment.mention.created not published`);
      if (takenBack.length < made.length)
        missing.push(`${made.length - takenBack.length} comment.mention.deleted not published`);
      const unhandled = (where: string, events: { id: string; type: string }[], handledIds: Set<string>) =>
        events
          .filter((event) => !handledIds.has(event.id))
          .forEach((event) => missing.push(`${event.type} ${event.id} not handled by ${where}`));
      unhandled('comments', deletions, inComments);
      unhandled('notifications', [...deletions, ...made, ...takenBack], inNotifications);
      return missing;
    });
    if (pending.length === 0 || Date.now() > deadline) return pending;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
