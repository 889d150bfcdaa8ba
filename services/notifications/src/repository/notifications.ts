import type { EventEnvelope } from '@recipes/contracts';
import { type ListingPage, type ListingRequest, type Queryable, readListing } from '@recipes/db';
import { firstDelivery, outboxRow } from '@recipes/outbox';
import type { NewNotification, NotificationRecord, NotificationType } from './rows.js';
import { silenced } from './silences.js';

export interface NotificationCounts {
  total: number;
  unread: number;
}

/** A notification just stored: its place in the recipient's sequence, their unread count with it, and whether a stream of theirs is open. */
export interface StoredNotification {
  sequence: number;
  unread: number;
  streamOpen: boolean;
}

/**
 * The recipient's lock, held to the end of the transaction (an advisory lock: it needs no row, so opening
 * a stream leaves none behind). Storing or marking their notifications and opening a stream of theirs
 * take it, so that each sees whatever the other committed (see `openStream`). Always taken before their
 * counts row, never after it.
 */
const recipientLock = (parameter: string) => `pg_advisory_xact_lock(hashtextextended('notifications.recipient:' || ${parameter}::uuid::text, 0))`;

export async function lockRecipient(db: Queryable, recipientId: string): Promise<void> {
  await db.query(`SELECT ${recipientLock('$1')}`, [recipientId]);
}

/**
 * The lock of one recipe, post or collection (SQL parameters `type` and `id`): storing a notification about
 * it and retracting those about it as it is deleted wait for each other. Taken before any other lock.
 */
export const contentLock = (type: string, id: string) => `pg_advisory_xact_lock(hashtextextended('notifications.content:' || ${type}::text || ':' || ${id}::uuid::text, 0))`;

/** The lock of `lockCommentNotifications`, on a key `commentLockKey` made, passed as SQL `parameter`. */
const commentLock = (parameter: string) => `pg_advisory_xact_lock(hashtextextended(${parameter}, 0))`;
const commentLockKey = (recipientId: string, commentId: string) => `notifications:${recipientId}:${commentId}`;

/**
 * Stores a notification once per source event, counts it for its recipient, and writes `announcement`
 * (its `notification.created`, whose `data.unreadCount` the statement fills in) to the outbox when a
 * stream of theirs is open. An event stored before (the inbox row `firstDelivery`, or the same source
 * event id), or a mention of a user the comment has notified already (retracted since, or not), changes
 * nothing, counts included, and gives undefined.
 *
 * Nothing is stored about content deleted before (`deleted_content`, see `retractAboutContent`), whose
 * lock is the first one taken, nor what the recipient silenced (`silenced`: a mute, a block, a type off).
 *
 * Two statements, the locks in the first, after the inbox row: the content's lock, a mention's comment
 * lock (`lockCommentNotifications`), the recipient's lock, then their counts row, all held to the commit, so
 * that their notifications take their sequence numbers in commit order (migrations/003_streams.sql) and a
 * stream opening meanwhile waits for this one. The second statement, begun once they are held, sees
 * every stream opened before: so `streamOpen` is what `hasOpenStream` would say, without a round trip of
 * its own. Run in a transaction.
 */
export async function insertNotification(
  db: Queryable,
  id: string,
  source: Pick<EventEnvelope, 'id' | 'type'>,
  n: NewNotification,
  announcement?: (sequence: number) => EventEnvelope,
): Promise<StoredNotification | undefined> {
  // The lock order is the nesting, innermost first: the inbox row (none for an event handled before: no
  // lock at all), the content's lock, the comment lock, the recipient's, then the counts row the INSERT
  // locks. PostgreSQL holds to it whatever plan it picks: a subquery in FROM whose output calls a
  // volatile function (pg_advisory_xact_lock is one) is never pulled up into the query around it, so each
  // runs as its own scan that asks the one inside it for its row first. One round trip where four
  // statements would take four; test/repository/streams.test.ts shows the waits it makes.
  const { rows: locked } = await db.query<{ lastSequence: string }>(
    `WITH ${firstDelivery('$3', '$4')}
     INSERT INTO notification_counts (recipient_id, total, unread)
     SELECT $1::uuid, 0, 0
       FROM (SELECT ${recipientLock('$1')}
               FROM (SELECT CASE WHEN $2::text IS NOT NULL THEN ${commentLock('$2')}::text END
                       FROM (SELECT ${contentLock('$5', '$6')} FROM first_delivery) AS content_locked
                    ) AS comment_locked
            ) AS recipient_locked
     ON CONFLICT (recipient_id) DO UPDATE SET recipient_id = EXCLUDED.recipient_id
     RETURNING last_sequence AS "lastSequence"`,
    [n.recipientId, n.commentId === null ? null : commentLockKey(n.recipientId, n.commentId), source.id, source.type, n.contentType, n.contentId],
  );
  if (!locked[0]) return undefined;
  const sequence = Number(locked[0].lastSequence) + 1;
  const [eventId, eventType, payload] = announcement ? outboxRow(announcement(sequence)) : [null, null, null];
  const { rows } = await db.query<{ unread: number; streamOpen: boolean }>(
    `WITH inserted AS (
       INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
        WHERE NOT EXISTS (SELECT 1 FROM deleted_content WHERE content_id = $6 AND content_type = $5) AND NOT ${silenced('$2', '$4', '$3', '$8')}
       ON CONFLICT DO NOTHING
       RETURNING recipient_id
     ), counted AS (
       UPDATE notification_counts
          SET total = total + 1, unread = unread + 1, last_sequence = $10, version = version + 1
        WHERE recipient_id = (SELECT recipient_id FROM inserted)
       RETURNING unread, EXISTS (SELECT 1 FROM open_streams WHERE recipient_id = $2) AS "streamOpen"
     ), announced AS (
       INSERT INTO outbox (id, type, payload)
       SELECT $11::uuid, $12, jsonb_set($13::jsonb, '{data,unreadCount}', to_jsonb(unread)) FROM counted WHERE "streamOpen" AND $11 IS NOT NULL
     )
     SELECT unread, "streamOpen" FROM counted`,
    [id, n.recipientId, n.type, n.actorId, n.contentType, n.contentId, n.commentId, n.createdAt, source.id, sequence, eventId, eventType, payload],
  );
  return rows[0] ? { sequence, ...rows[0] } : undefined;
}

/** What a listing keeps of the recipient's notifications (docs/api.md §10.2): all, the unread, some types. */
export interface ListingFilter {
  unreadOnly: boolean;
  types?: NotificationType[] | undefined;
}

/** The count of what `filter` keeps: from the counts row unless types are picked, which are counted. */
function filteredCount(filter: ListingFilter, where: string): string {
  if (filter.types) return `SELECT count(*)::int AS total FROM notifications WHERE ${where}`;
  return `SELECT coalesce((SELECT ${filter.unreadOnly ? 'unread' : 'total'} FROM notification_counts WHERE recipient_id = $1), 0) AS total`;
}

/**
 * One page of the recipient's notifications that `filter` keeps, newest first (by number, or after a
 * position: a keyset seek on `notifications_listing_idx`, or `notifications_unread_listing_idx` for the
 * unread), and how many it keeps: from their counts row, or counted when types are picked (one index
 * range of the recipient's, read in full). One statement, so the page and its total agree (`readListing`).
 * The filters are written into the SQL, so that the planner sees which partial index matches.
 */
export async function findPage(db: Queryable, recipientId: string, filter: ListingFilter, request: ListingRequest): Promise<ListingPage<NotificationRecord>> {
  const values: unknown[] = [recipientId];
  const where = ['recipient_id = $1', 'retracted_at IS NULL'];
  if (filter.unreadOnly) where.push('NOT is_read');
  if (filter.types) where.push(`type = ANY($${values.push(filter.types)}::text[])`);
  return readListing<NotificationRecord>(
    db,
    {
      count: filteredCount(filter, where.join(' AND ')),
      columns: `id, type, group_key AS "groupKey", actor_id AS "actorId", content_type AS "contentType", content_id AS "contentId",
                comment_id AS "commentId", is_read AS "isRead", created_at AS "createdAt"`,
      from: `FROM notifications WHERE ${where.join(' AND ')}`,
      order: { at: 'created_at', id: 'id', idType: 'uuid', direction: 'desc' },
    },
    values,
    request,
  );
}

/** What changes whenever the recipient's listing or unread count would (their ETag, docs/api.md §7); 0 before anything. */
export async function findVersion(db: Queryable, recipientId: string): Promise<number> {
  const { rows } = await db.query<{ version: string }>('SELECT version FROM notification_counts WHERE recipient_id = $1', [recipientId]);
  return rows[0] ? Number(rows[0].version) : 0;
}

export async function findCounts(db: Queryable, recipientId: string): Promise<NotificationCounts> {
  const { rows } = await db.query<NotificationCounts>('SELECT total, unread FROM notification_counts WHERE recipient_id = $1', [recipientId]);
  return rows[0] ?? { total: 0, unread: 0 };
}

/**
 * Makes the changes of one user's notifications about one comment wait for each other, so that a
 * mention and its retraction handled at the same moment cannot both find nothing there.
 */
export async function lockCommentNotifications(db: Queryable, recipientId: string, commentId: string): Promise<void> {
  await db.query(`SELECT ${commentLock('$1')}`, [commentLockKey(recipientId, commentId)]);
}
