import fc from 'fast-check';
import { newId } from '@recipes/contracts';
import { withTransaction } from '@recipes/db';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import {
  insertNotification,
  insertNotifications,
  lockCommentNotifications,
  lockRecipient,
  type NotificationToStore,
} from '../../src/repository/notifications.js';
import { retractAboutContent, retractMention } from '../../src/repository/retractions.js';
import { notificationsService } from '../../src/service.js';
import { heldTransactions, mention, sourceEvent } from './held-transactions.js';

/**
 * A batch of notifications (`insertNotifications`, migrations/020_store_notifications.sql) stores each as
 * `insertNotification` would, in one transaction, and takes its locks in an order that no other holder of them
 * can wait against.
 */
const pool = migratedPool(notificationsService);
const { begin: transaction } = heldTransactions(pool, { lockTimeoutMs: 300 });
const { begin: patientTransaction } = heldTransactions(pool, { lockTimeoutMs: 2_000 });

/** Resolves once a statement of this database whose text holds `text` waits for a lock. */
async function waitingForALock(text: string): Promise<void> {
  for (;;) {
    const { rows } = await pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${text}%`],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One notification of a scenario: its recipient's earlier ones, and what keeps it from being stored, if anything. */
interface Case {
  earlier: number;
  eventStoredBefore: boolean;
  contentDeleted: boolean;
}

/** Sets up `cases` on fresh users and recipes, and answers the notifications to store now. */
async function setUp(cases: Case[]): Promise<NotificationToStore[]> {
  const batch: NotificationToStore[] = [];
  for (const { earlier, eventStoredBefore, contentDeleted } of cases) {
    const recipientId = newId();
    for (let n = 0; n < earlier; n += 1)
      await insertNotification(pool, newId(), sourceEvent(), mention({ recipientId }));
    const notification = mention({ recipientId });
    const source = sourceEvent();
    if (eventStoredBefore) await insertNotification(pool, newId(), source, mention({ recipientId }));
    if (contentDeleted)
      await withTransaction(pool, (tx) =>
        retractAboutContent(tx, { type: 'recipe', id: notification.contentId }, new Date().toISOString()),
      );
    batch.push({ id: newId(), source, notification });
  }
  return batch;
}

describe('a batch of notifications', () => {
  it('answers, in the order given, what storing each alone answers', async () => {
    const cases = fc.array(
      fc.record({ earlier: fc.nat({ max: 2 }), eventStoredBefore: fc.boolean(), contentDeleted: fc.boolean() }),
      { minLength: 1, maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(cases, async (scenario) => {
        const alone = [];
        for (const { id, source, notification } of await setUp(scenario))
          alone.push(await insertNotification(pool, id, source, notification));
        // Given newest recipient first: ids are made in order, and the batch takes them the other way.
        const batch = (await setUp(scenario)).toReversed();
        expect(await insertNotifications(pool, batch)).toEqual(alone.toReversed());
      }),
      { numRuns: 30, seed: 20261129 },
    );
  });

  it('stores one recipient’s notifications of a batch in the order given', async () => {
    const [recipientId, other] = [newId(), newId()];
    const batch = [recipientId, other, recipientId, recipientId].map((to) => ({
      id: newId(),
      source: sourceEvent(),
      notification: mention({ recipientId: to }),
    }));
    expect(
      (await insertNotifications(pool, batch)).map((answer) => answer && 'sequence' in answer && answer.sequence),
    ).toEqual([1, 1, 2, 3]);
  });

  it('takes every content’s lock before any recipient’s', async () => {
    // A deletion holds the second recipe's lock (and would take the recipients' next): the batch waits for it
    // holding no recipient's lock, so another transaction takes both at once.
    const [first, second] = [mention(), mention()];
    await retractAboutContent(await transaction(), { type: 'recipe', id: second.contentId }, new Date().toISOString());
    const batch = [first, second].map((notification) => ({ id: newId(), source: sourceEvent(), notification }));
    const storing = insertNotifications(await patientTransaction(), batch);
    await waitingForALock('store_notifications');
    const other = await transaction();
    await expect(lockRecipient(other, first.recipientId)).resolves.toBeUndefined();
    await expect(lockRecipient(other, second.recipientId)).resolves.toBeUndefined();
    await expect(storing).rejects.toMatchObject({ code: '55P03' });
  });

  it('takes every comment’s lock before any recipient’s', async () => {
    // A mention's retraction holds the lock of the recipient's second comment (and would take the recipient's
    // next): the batch waits for it holding no recipient's lock.
    const recipientId = newId();
    const [first, second] = [mention({ recipientId }), mention({ recipientId })];
    await lockCommentNotifications(await transaction(), recipientId, second.commentId!);
    const batch = [first, second].map((notification) => ({ id: newId(), source: sourceEvent(), notification }));
    const storing = insertNotifications(await patientTransaction(), batch);
    await waitingForALock('store_notifications');
    await expect(lockRecipient(await transaction(), recipientId)).resolves.toBeUndefined();
    await expect(storing).rejects.toMatchObject({ code: '55P03' });
  });

  it('takes the recipients’ locks in order of their ids, whatever the order given', async () => {
    // Another transaction holds the first recipient's lock: the batch, given the other first, waits for it holding
    // neither, so the other's lock is free.
    const [first, second] = [newId(), newId()].sort();
    await lockRecipient(await transaction(), first!);
    const batch = [second!, first!].map((recipientId) => ({
      id: newId(),
      source: sourceEvent(),
      notification: mention({ recipientId }),
    }));
    const storing = insertNotifications(await patientTransaction(), batch);
    await waitingForALock('store_notifications');
    await expect(lockRecipient(await transaction(), second!)).resolves.toBeUndefined();
    await expect(storing).rejects.toMatchObject({ code: '55P03' });
  });

  it('never deadlocks with other batches, deletions and retracted mentions at once', async () => {
    // Two batches take six recipients the other way round, each about two comments, one of them on a recipe being
    // deleted; the mention of one of the comments to the fourth recipient is retracted meanwhile.
    const recipients = Array.from({ length: 6 }, () => newId());
    for (let round = 0; round < 10; round += 1) {
      const order = [...recipients.slice(round % 6), ...recipients.slice(0, round % 6)];
      const [kept, deleted] = [newId(), newId()];
      const comments = [newId(), newId()];
      const batchOf = (to: string[]) =>
        to.flatMap((recipientId) =>
          comments.map((commentId, n) => ({
            id: newId(),
            source: sourceEvent(),
            notification: mention({ recipientId, contentId: n ? kept : deleted, commentId }),
          })),
        );
      const retracted = mention({ recipientId: recipients[3]!, contentId: kept, commentId: comments[1]! });
      await Promise.all([
        insertNotifications(pool, batchOf(order)),
        insertNotifications(pool, batchOf(order.toReversed())),
        withTransaction(pool, (tx) =>
          retractAboutContent(tx, { type: 'recipe', id: deleted }, new Date().toISOString()),
        ),
        withTransaction(pool, async (tx) => {
          await lockCommentNotifications(tx, retracted.recipientId, retracted.commentId!);
          await retractMention(tx, newId(), newId(), retracted, new Date().toISOString());
        }),
      ]);
    }
  });
});
