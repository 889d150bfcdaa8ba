import { newId } from '@recipes/contracts';
import { type Queryable, withTransaction } from '@recipes/db';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { PushSettlements } from '../../src/push/settlements.js';
import { insertNotification } from '../../src/repository/notifications.js';
import { claimDuePushes, type DuePush, settlePushes } from '../../src/repository/push-deliveries.js';
import { saveSubscription } from '../../src/repository/push-subscriptions.js';
import { retractAboutContent } from '../../src/repository/retractions.js';
import { notificationsService } from '../../src/service.js';

/**
 * The push outbox's two statements (src/repository/push-deliveries.ts): the claim, which gives each
 * leased subscription's oldest due push with all that sending it needs, and the settlement, which ends a
 * push's try and may claim its subscription's next. Each test has recipients of its own; a claim takes
 * every due push of the database, so each test looks only at its own.
 */
const pool = migratedPool(notificationsService);
const LEASE_MS = 30_000;

const actor = { id: newId(), username: 'Ada_Actor', avatarUrl: 'https://images.example.com/ada.jpg' };
let actorKnown = false;

/** A recipient with one push subscription (of a browser that does not exist: nothing is sent here). */
async function subscribedRecipient() {
  if (!actorKnown) {
    await pool.query('INSERT INTO users (id, username, avatar_url, revision) VALUES ($1, $2, $3, 1)', [
      actor.id,
      actor.username,
      actor.avatarUrl,
    ]);
    actorKnown = true;
  }
  const userId = newId();
  const { record } = await withTransaction(pool, (tx) =>
    saveSubscription(
      tx,
      { id: newId(), userId, sessionId: null, endpoint: `https://push.example.net/${userId}`, p256dh: 'k', auth: 'a' },
      10,
    ),
  );
  return { userId, subscriptionId: record.id };
}

let minute = 0;
/** Stores a mention of `recipientId` by `actorId`, as the service stores one: its trigger queues its push. */
async function mention(recipientId: string, actorId = actor.id) {
  const id = newId();
  const contentId = newId();
  minute += 1;
  await insertNotification(
    pool,
    id,
    { id: newId(), type: 'comment.mention.created' },
    {
      recipientId,
      type: 'mention_recipe_comment',
      actorId,
      contentType: 'recipe',
      contentId,
      commentId: newId(),
      createdAt: new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString(),
    },
  );
  return { id, contentId };
}

const claimOf = async (subscriptionIds: string[]) =>
  (await claimDuePushes(pool, 100, LEASE_MS)).filter((push) => subscriptionIds.includes(push.subscription.id));

const rowsOf = async (subscriptionId: string) =>
  (
    await pool.query<{ notificationId: string; attempts: number; later: boolean }>(
      `SELECT notification_id AS "notificationId", attempts, available_at > clock_timestamp() AS later
         FROM push_deliveries WHERE subscription_id = $1 ORDER BY created_at, id`,
      [subscriptionId],
    )
  ).rows;

const leased = async (subscriptionId: string) =>
  (
    await pool.query<{ leased: boolean }>(
      'SELECT busy_until > clock_timestamp() AS leased FROM push_subscriptions WHERE id = $1',
      [subscriptionId],
    )
  ).rows[0]!.leased === true;

const settle = (push: DuePush, how: { retryInMs?: number; failed?: boolean; claimNext?: boolean } = {}) =>
  settlePushes(pool, [{ push, claimNext: true, ...how }], LEASE_MS);

describe('claiming', () => {
  it('gives the oldest due push of a subscription with its notification as the list shows it, the unread count and the actor', async () => {
    const { userId, subscriptionId } = await subscribedRecipient();
    const first = await mention(userId);
    await mention(userId);
    const [push, ...others] = await claimOf([subscriptionId]);
    expect(others).toEqual([]);
    expect(push).toMatchObject({
      attempts: 0,
      subscription: { id: subscriptionId, userId, sessionId: null, p256dh: 'k', auth: 'a' },
      notification: {
        id: first.id,
        type: 'mention_recipe_comment',
        groupKey: expect.any(String),
        actorId: actor.id,
        contentType: 'recipe',
        contentId: first.contentId,
        commentId: expect.any(String),
        isRead: false,
        createdAt: new Date(Date.UTC(2026, 10, 25, 10, minute - 1)),
      },
      unread: 2,
      actor,
    });
    expect(push!.queuedAt).toBeInstanceOf(Date);
    // One push at a time per subscription: the second waits for the lease.
    expect(await leased(subscriptionId)).toBe(true);
    expect(await claimOf([subscriptionId])).toEqual([]);
  });

  it('gives no actor when the users read model holds none, for the directory to ask', async () => {
    const { userId, subscriptionId } = await subscribedRecipient();
    await mention(userId, newId());
    const [push] = await claimOf([subscriptionId]);
    expect(push!.actor).toBeUndefined();
  });

  it('skips the push of a notification retracted since it was queued, deletes it, and leases nothing for it', async () => {
    const { userId, subscriptionId } = await subscribedRecipient();
    const lone = await subscribedRecipient();
    const retracted = await mention(userId);
    const standing = await mention(userId);
    const alsoRetracted = await mention(lone.userId);
    for (const { contentId } of [retracted, alsoRetracted]) {
      await withTransaction(pool, (tx) =>
        retractAboutContent(tx, { type: 'recipe', id: contentId }, new Date().toISOString()),
      );
    }
    const claimed = await claimOf([subscriptionId, lone.subscriptionId]);
    expect(claimed.map((push) => push.notification.id)).toEqual([standing.id]);
    expect(claimed[0]!.unread).toBe(1);
    expect((await rowsOf(subscriptionId)).map((row) => row.notificationId)).toEqual([standing.id]);
    expect(await rowsOf(lone.subscriptionId)).toEqual([]);
    expect(await leased(lone.subscriptionId)).toBe(false);
  });
});

describe('settling', () => {
  it('deletes a push done with, and claims its subscription’s next in its place, keeping the lease', async () => {
    const { userId, subscriptionId } = await subscribedRecipient();
    const first = await mention(userId);
    const second = await mention(userId);
    const [push] = await claimOf([subscriptionId]);
    expect(push!.notification.id).toBe(first.id);
    const next = await settle(push!);
    expect([...next.keys()]).toEqual([subscriptionId]);
    expect(next.get(subscriptionId)).toMatchObject({ notification: { id: second.id }, unread: 2, actor });
    expect(await leased(subscriptionId)).toBe(true);
    expect((await rowsOf(subscriptionId)).map((row) => row.notificationId)).toEqual([second.id]);
    expect(await settle(next.get(subscriptionId)!)).toEqual(new Map());
    expect(await leased(subscriptionId)).toBe(false);
    expect(await rowsOf(subscriptionId)).toEqual([]);
  });

  it('puts a failed push back for later with its attempt counted, and claims the next one due instead', async () => {
    const { userId, subscriptionId } = await subscribedRecipient();
    const first = await mention(userId);
    const second = await mention(userId);
    const [push] = await claimOf([subscriptionId]);
    const next = await settle(push!, { retryInMs: 60_000, failed: true });
    expect(next.get(subscriptionId)?.notification.id).toBe(second.id);
    expect(await rowsOf(subscriptionId)).toEqual([
      { notificationId: first.id, attempts: 1, later: true },
      { notificationId: second.id, attempts: 0, later: false },
    ]);
    // Cut short by a shutdown: due again at once, no attempt counted, and the subscription free.
    await settle(next.get(subscriptionId)!, { retryInMs: 0, failed: false, claimNext: false });
    expect(await rowsOf(subscriptionId)).toEqual([
      { notificationId: first.id, attempts: 1, later: true },
      { notificationId: second.id, attempts: 0, later: false },
    ]);
    expect(await leased(subscriptionId)).toBe(false);
  });

  it('frees the subscription without claiming when asked not to, and passes over a retracted next push', async () => {
    const { userId, subscriptionId } = await subscribedRecipient();
    await mention(userId);
    const retracted = await mention(userId);
    const third = await mention(userId);
    const [push] = await claimOf([subscriptionId]);
    expect(await settle(push!, { retryInMs: 0, claimNext: false })).toEqual(new Map());
    expect(await leased(subscriptionId)).toBe(false);
    const [again] = await claimOf([subscriptionId]);
    expect(again!.id).toBe(push!.id);
    await withTransaction(pool, (tx) =>
      retractAboutContent(tx, { type: 'recipe', id: retracted.contentId }, new Date().toISOString()),
    );
    expect((await settle(again!)).get(subscriptionId)?.notification.id).toBe(third.id);
  });

  it('settles the pushes handled in the same turn in one statement, each with its own next', async () => {
    const recipients = await Promise.all([subscribedRecipient(), subscribedRecipient(), subscribedRecipient()]);
    const seconds = [];
    for (const { userId } of recipients) {
      await mention(userId);
      seconds.push((await mention(userId)).id);
    }
    const ids = recipients.map((recipient) => recipient.subscriptionId);
    const claimed = await claimOf(ids);
    expect(claimed).toHaveLength(3);
    const statements: string[] = [];
    const counting: Queryable = {
      query: ((text: string, values: unknown[]) => (
        statements.push(text),
        pool.query(text, values)
      )) as Queryable['query'],
    };
    const settlements = new PushSettlements(counting, LEASE_MS);
    const [a, b, c] = ids.map((id) => claimed.find((push) => push.subscription.id === id)!);
    const nexts = await Promise.all([
      settlements.settle({ push: a!, claimNext: true }),
      settlements.settle({ push: b!, retryInMs: 60_000, failed: true, claimNext: true }),
      settlements.settle({ push: c!, claimNext: false }),
    ]);
    expect(statements).toHaveLength(1);
    expect(nexts.map((next) => next?.notification.id)).toEqual([seconds[0], seconds[1], undefined]);
    expect(await Promise.all(ids.map(leased))).toEqual([true, true, false]);
    expect((await rowsOf(ids[1]!)).map((row) => row.attempts)).toEqual([1, 0]);
  });
});
