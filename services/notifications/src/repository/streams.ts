import type { Queryable } from '@recipes/db';
import { lockRecipient } from './notifications.js';
import type { NotificationRecord } from './rows.js';

/** A stored notification with its place in the recipient's sequence. */
export interface SequencedRecord extends NotificationRecord {
  sequence: number;
}

/** The sequence of the recipient's notification `id`; undefined when it is not one of theirs. */
export async function findSequence(db: Queryable, recipientId: string, id: string): Promise<number | undefined> {
  const { rows } = await db.query<{ sequence: string }>(
    'SELECT sequence FROM notifications WHERE id = $1 AND recipient_id = $2 AND sequence IS NOT NULL',
    [id, recipientId],
  );
  return rows[0] ? Number(rows[0].sequence) : undefined;
}

/** A stored notification with its actor as the users read model has them (undefined when it does not know them). */
export interface SequencedRecordWithActor extends SequencedRecord {
  actor: { id: string; username: string; avatarUrl: string | null } | undefined;
}

/** What changed for the recipient at one place of their sequence: a notification stored, or one retracted. */
export type StreamChange =
  { kind: 'notification'; record: SequencedRecordWithActor } | { kind: 'retracted'; id: string; sequence: number };

/**
 * In one round trip, a stream's catch-up: what changed for the recipient after `sequence`, in sequence
 * order, at most `limit`: each notification stored after it and not retracted, each one stored up to it
 * and retracted after it (one stored and retracted after it is neither); and where the recipient stands.
 */
export async function findSince(
  db: Queryable,
  recipientId: string,
  sequence: number,
  limit: number,
): Promise<{ changes: StreamChange[]; position: StreamPosition }> {
  // Two index range scans, merged in order (migrations/003 and 004). OFFSET 0 keeps `retracted_at IS NULL` out of the
  // first scan, so that no partial index of the recipient's notifications can serve it: planned without the values
  // and on young statistics, one looked as cheap as the sequence's range, and read all of the recipient's
  // notifications for each catch-up (test/repository.query-plans.test.ts).
  const { rows } = await db.query(
    `SELECT c.last_sequence AS "lastSequence", c.unread, n.place, n.retracted, n.id, n.sequence, n.type, n.actor_id AS "actorId",
            n.content_type AS "contentType", n.content_id AS "contentId", n.comment_id AS "commentId", n.group_key AS "groupKey",
            n.is_read AS "isRead", n.created_at AS "createdAt", u.username, u.avatar_url AS "avatarUrl"
       FROM notification_counts c
       LEFT JOIN LATERAL (
         (SELECT *, sequence AS place, false AS retracted
            FROM (SELECT * FROM notifications WHERE recipient_id = c.recipient_id AND sequence > $2 ORDER BY sequence OFFSET 0) s
           WHERE retracted_at IS NULL LIMIT $3)
         UNION ALL
         (SELECT *, retraction_sequence AS place, true AS retracted FROM notifications
           WHERE recipient_id = c.recipient_id AND retraction_sequence > $2 AND sequence <= $2
           ORDER BY retraction_sequence LIMIT $3)
         ORDER BY place LIMIT $3
       ) n ON true
       LEFT JOIN users u ON u.id = n.actor_id AND NOT n.retracted
      WHERE c.recipient_id = $1
      ORDER BY n.place`,
    [recipientId, sequence, limit],
  );
  const first = rows[0];
  if (!first) return { changes: [], position: { lastSequence: 0, lastId: undefined, unread: 0 } };
  const changes: StreamChange[] = rows
    .filter((row) => row.id !== null)
    .map(({ lastSequence: _last, unread: _unread, place, retracted, username, avatarUrl, ...record }): StreamChange =>
      retracted
        ? { kind: 'retracted', id: record.id, sequence: Number(place) }
        : {
            kind: 'notification',
            record: {
              ...record,
              sequence: Number(record.sequence),
              actor: username === null ? undefined : { id: record.actorId, username, avatarUrl },
            },
          },
    );
  const lastSequence = Number(first.lastSequence);
  const last = changes.find((change) => change.kind === 'notification' && change.record.sequence === lastSequence);
  return {
    changes,
    position: {
      lastSequence,
      lastId: last?.kind === 'notification' ? last.record.id : undefined,
      unread: first.unread,
    },
  };
}

export interface StreamPosition {
  /** The sequence of the recipient's newest notification, 0 when none. */
  lastSequence: number;
  /** The id of that notification, undefined when none. */
  lastId: string | undefined;
  unread: number;
}

/** Where the recipient stands: `lastId` is their newest notification, even when a retraction came after it. */
export async function findPosition(db: Queryable, recipientId: string): Promise<StreamPosition> {
  const { rows } = await db.query<{ lastSequence: string; lastId: string | null; unread: number }>(
    `SELECT c.last_sequence AS "lastSequence", c.unread, n.id AS "lastId"
       FROM notification_counts c
       LEFT JOIN LATERAL (
         SELECT id FROM notifications WHERE recipient_id = c.recipient_id AND sequence <= c.last_sequence ORDER BY sequence DESC LIMIT 1
       ) n ON true
      WHERE c.recipient_id = $1`,
    [recipientId],
  );
  const row = rows[0];
  return row
    ? { lastSequence: Number(row.lastSequence), lastId: row.lastId ?? undefined, unread: row.unread }
    : { lastSequence: 0, lastId: undefined, unread: 0 };
}

/**
 * Records a stream as open; gives the ids of the recipient's oldest open streams beyond `limit`, now closed
 * here. Under the recipient's lock, which a notification being stored holds to its commit: either that
 * notification commits first, and the stream's first read (after this commits) finds it in the table, or
 * this commits first, and the notification's transaction sees the stream open and announces it.
 */
export async function openStream(db: Queryable, id: string, recipientId: string, limit: number): Promise<string[]> {
  await lockRecipient(db, recipientId);
  await db.query('INSERT INTO open_streams (id, recipient_id, opened_at) VALUES ($1, $2, clock_timestamp())', [
    id,
    recipientId,
  ]);
  const { rows } = await db.query<{ id: string }>(
    `DELETE FROM open_streams WHERE id IN (
       SELECT id FROM open_streams WHERE recipient_id = $1 ORDER BY opened_at DESC, id DESC OFFSET $2
     ) RETURNING id`,
    [recipientId, limit],
  );
  return rows.map((row) => row.id);
}

/**
 * Whether any instance holds a stream of the recipient. Asked while holding their lock (`lockRecipient`, see
 * `openStream`). A stream whose instance died without closing it still counts: that costs events nobody
 * needed, never one that was.
 */
export async function hasOpenStream(db: Queryable, recipientId: string): Promise<boolean> {
  const { rows } = await db.query<{ open: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM open_streams WHERE recipient_id = $1) AS open',
    [recipientId],
  );
  return rows[0]!.open;
}

export async function closeStream(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM open_streams WHERE id = $1', [id]);
}
