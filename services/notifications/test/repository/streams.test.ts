import { newId } from '@recipes/contracts';
import type { PoolClient } from 'pg';
import { eventually } from '@recipes/testing';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { insertNotification, lockCommentNotifications, lockRecipient } from '../../src/repository/notifications.js';
import { retractAboutContent } from '../../src/repository/retractions.js';
import { closeStream, findSince, hasOpenStream, openStream } from '../../src/repository/streams.js';
import { notificationsService } from '../../src/service.js';
import { heldTransactions, mention, sourceEvent } from './held-transactions.js';

/**
 * A notification is prompted (`notification.created`, by `record`) only if its store sees a stream of the
 * recipient open. A stream opening at the same moment must then find the notification in the table: the
 * two transactions take the recipient's lock (`lockRecipient`), so one waits for the other's commit,
 * whichever comes first. Each order is forced here, with the waiting one seen waiting in pg_stat_activity.
 */
const pool = migratedPool(notificationsService);
const { begin: transaction, commit } = heldTransactions(pool);

/** Asked before the client's blocking statement: a client runs one statement at a time. */
const backendOf = async (client: PoolClient) =>
  (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
/** Resolves once `pid`'s statement waits for a lock. */
const waitingForLock = (pid: number) =>
  eventually(async () =>
    (await pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid])).rowCount
      ? true
      : undefined,
  );

const mentionOf = (recipientId: string) => mention({ recipientId });

describe('a stream opening while a notification is stored', () => {
  it('waits for the notification to commit, then its first read finds it (not announced: no stream was open)', async () => {
    const recipient = newId();
    const storing = await transaction();
    const stored = await insertNotification(storing, newId(), sourceEvent(), mentionOf(recipient));
    expect(stored).toMatchObject({ sequence: 1, streamOpen: false });

    const opening = await transaction();
    const openingBackend = await backendOf(opening);
    const opened = openStream(opening, newId(), recipient, 5);
    await waitingForLock(openingBackend);
    expect(await hasOpenStream(storing, recipient)).toBe(false);
    await commit(storing);

    await opened;
    await commit(opening);
    const { changes } = await findSince(pool, recipient, 0, 10);
    expect(changes.map((change) => change.kind === 'notification' && change.record.sequence)).toEqual([1]);
  });

  it('once opened first, makes the notification stored after it wait, and then see the stream (announced)', async () => {
    const recipient = newId();
    const opening = await transaction();
    await openStream(opening, newId(), recipient, 5);

    const storing = await transaction();
    const storingBackend = await backendOf(storing);
    const stored = insertNotification(storing, newId(), sourceEvent(), mentionOf(recipient));
    await waitingForLock(storingBackend);
    await commit(opening);

    expect(await stored).toMatchObject({ sequence: 1, streamOpen: true });
    expect(await hasOpenStream(storing, recipient)).toBe(true);
    await commit(storing);
  });

  it('sees, once the recipient’s lock it waited for is granted, a stream opened after the store began', async () => {
    const recipient = newId();
    expect(await insertNotification(pool, newId(), sourceEvent(), mentionOf(recipient))).toMatchObject({
      sequence: 1,
      unread: 1,
      streamOpen: false,
    });

    const locking = await transaction();
    await lockRecipient(locking, recipient);
    // On the pool, as `record` stores: one statement, no transaction of its own.
    const storing = await pool.connect();
    const storingBackend = await backendOf(storing);
    const stored = insertNotification(storing, newId(), sourceEvent(), mentionOf(recipient)).finally(() =>
      storing.release(),
    );
    await waitingForLock(storingBackend);
    // The stream opens after the call began, in the transaction that holds the lock it waits for.
    await openStream(locking, newId(), recipient, 5);
    await commit(locking);

    expect(await stored).toEqual({ sequence: 2, unread: 2, streamOpen: true });
  });

  it('leaves no row behind for a recipient without notifications, once the stream closed', async () => {
    const recipient = newId();
    const id = newId();
    await openStream(pool, id, recipient, 5);
    await closeStream(pool, id);
    const { rowCount } = await pool.query('SELECT 1 FROM notification_counts WHERE recipient_id = $1', [recipient]);
    expect(rowCount).toBe(0);
  });

  it('counts no stream for a recipient who has none, or whose streams all closed', async () => {
    const recipient = newId();
    expect(await hasOpenStream(pool, recipient)).toBe(false);
    const id = newId();
    await openStream(pool, id, recipient, 5);
    expect(await hasOpenStream(pool, recipient)).toBe(true);
    await closeStream(pool, id);
    expect(await hasOpenStream(pool, recipient)).toBe(false);
  });
});

describe('storing a mention', () => {
  it('waits for a change of the same mention (its comment lock, taken in the same call as the recipient’s)', async () => {
    const recipient = newId();
    const mention = mentionOf(recipient);
    const retracting = await transaction();
    await lockCommentNotifications(retracting, recipient, mention.commentId!);

    const storing = await transaction();
    const storingBackend = await backendOf(storing);
    const stored = insertNotification(storing, newId(), sourceEvent(), mention);
    await waitingForLock(storingBackend);
    await commit(retracting);

    expect(await stored).toMatchObject({ sequence: 1, streamOpen: false });
    await commit(storing);
  });
});

describe('storing a notification about content', () => {
  it('waits for the content’s deletion (its lock, the first one taken), then stores nothing, counts included', async () => {
    const recipient = newId();
    await openStream(pool, newId(), recipient, 5);
    const id = newId();
    const mention = mentionOf(recipient);
    const deleting = await transaction();
    await retractAboutContent(
      deleting,
      { type: mention.contentType, id: mention.contentId },
      '2026-11-25T11:00:00.000Z',
    );

    const storing = await pool.connect();
    const storingBackend = await backendOf(storing);
    const stored = insertNotification(storing, id, sourceEvent(), mention).finally(() => storing.release());
    await waitingForLock(storingBackend);
    await commit(deleting);

    expect(await stored).toEqual({ withheldBy: 'deleted_content' });
    const { rows } = await pool.query(
      'SELECT total, unread, last_sequence AS "lastSequence" FROM notification_counts WHERE recipient_id = $1',
      [recipient],
    );
    expect(rows).toEqual([]);
  });

  it('stores an event delivered again once only, and counts it once', async () => {
    const recipient = newId();
    await openStream(pool, newId(), recipient, 5);
    const id = newId();
    const mention = mentionOf(recipient);
    const source = sourceEvent();
    expect(await insertNotification(pool, id, source, mention)).toEqual({ sequence: 1, unread: 1, streamOpen: true });
    expect(await insertNotification(pool, newId(), source, mention)).toBeUndefined();
    const { rows } = await pool.query('SELECT total, unread FROM notification_counts WHERE recipient_id = $1', [
      recipient,
    ]);
    expect(rows).toEqual([{ total: 1, unread: 1 }]);
  });
});
