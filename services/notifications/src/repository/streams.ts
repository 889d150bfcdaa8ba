import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '@recipes/db';
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

/** The recipient's notifications stored after `sequence`, oldest first, at most `limit`; retracted ones left out. */
export async function findAfter(db: Queryable, recipientId: string, sequence: number, limit: number): Promise<SequencedRecord[]> {
  const { rows } = await db.query<SequencedRecord & { sequence: string }>(
    `SELECT id, sequence, type, actor_id AS "actorId", content_type AS "contentType", content_id AS "contentId",
            comment_id AS "commentId", is_read AS "isRead", created_at AS "createdAt"
       FROM notifications
      WHERE recipient_id = $1 AND sequence > $2 AND retracted_at IS NULL
      ORDER BY sequence
      LIMIT $3`,
    [recipientId, sequence, limit],
  );
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence) }));
}

export interface StreamPosition {
  /** The sequence of the recipient's newest notification, 0 when none. */
  lastSequence: number;
  unread: number;
}

export async function findPosition(db: Queryable, recipientId: string): Promise<StreamPosition> {
  const { rows } = await db.query<{ lastSequence: string; unread: number }>(
    'SELECT last_sequence AS "lastSequence", unread FROM notification_counts WHERE recipient_id = $1',
    [recipientId],
  );
  return rows[0] ? { lastSequence: Number(rows[0].lastSequence), unread: rows[0].unread } : { lastSequence: 0, unread: 0 };
}

const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest();

/** A new single-use ticket of `recipientId`, valid `ttlSeconds`; expired ones are cleared on the way. */
export async function issueTicket(db: Queryable, recipientId: string, ttlSeconds: number): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await db.query(
    `WITH expired AS (DELETE FROM stream_tickets WHERE expires_at < now())
     INSERT INTO stream_tickets (ticket_hash, recipient_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [hashOf(ticket), recipientId, ttlSeconds],
  );
  return ticket;
}

/** The recipient a valid ticket was issued to, using it up; undefined for an unknown, used or expired one. */
export async function redeemTicket(db: Queryable, ticket: string): Promise<string | undefined> {
  const { rows } = await db.query<{ recipientId: string }>(
    'DELETE FROM stream_tickets WHERE ticket_hash = $1 AND expires_at > now() RETURNING recipient_id AS "recipientId"',
    [hashOf(ticket)],
  );
  return rows[0]?.recipientId;
}

/** Records a stream as open; gives the ids of the recipient's oldest open streams beyond `limit`, now closed here. */
export async function openStream(db: Queryable, id: string, recipientId: string, limit: number): Promise<string[]> {
  await db.query('INSERT INTO open_streams (id, recipient_id, opened_at) VALUES ($1, $2, clock_timestamp())', [id, recipientId]);
  const { rows } = await db.query<{ id: string }>(
    `DELETE FROM open_streams WHERE id IN (
       SELECT id FROM open_streams WHERE recipient_id = $1 ORDER BY opened_at DESC, id DESC OFFSET $2
     ) RETURNING id`,
    [recipientId, limit],
  );
  return rows.map((row) => row.id);
}

export async function closeStream(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM open_streams WHERE id = $1', [id]);
}
