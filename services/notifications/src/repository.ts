import type { Queryable } from '@recipes/db';
import type { NewNotification, NotificationType, TargetType } from './notifications.js';

/** A row of `notifications`, as the domain sees it. */
export interface NotificationRecord {
  id: string;
  type: NotificationType;
  actorId: string;
  contentType: TargetType;
  contentId: string;
  commentId: string | null;
  isRead: boolean;
  createdAt: Date;
}

export interface NotificationCounts {
  total: number;
  unread: number;
}

/**
 * Stores a notification and counts it for its recipient, in one statement. An event stored before
 * (same source event id), or a mention of a user the comment has notified already (retracted since, or
 * not), changes nothing, counts included.
 */
export async function insertNotification(db: Queryable, id: string, sourceEventId: string, n: NewNotification): Promise<void> {
  await db.query(
    `WITH inserted AS (
       INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT DO NOTHING
       RETURNING recipient_id
     )
     INSERT INTO notification_counts (recipient_id, total, unread)
     SELECT recipient_id, 1, 1 FROM inserted
     ON CONFLICT (recipient_id) DO UPDATE
       SET total = notification_counts.total + 1, unread = notification_counts.unread + 1`,
    [id, n.recipientId, n.type, n.actorId, n.contentType, n.contentId, n.commentId, n.createdAt, sourceEventId],
  );
}

export async function findPage(db: Queryable, recipientId: string, limit: number, offset: number): Promise<NotificationRecord[]> {
  const { rows } = await db.query<NotificationRecord>(
    `SELECT id, type, actor_id AS "actorId", content_type AS "contentType", content_id AS "contentId",
            comment_id AS "commentId", is_read AS "isRead", created_at AS "createdAt"
       FROM notifications
      WHERE recipient_id = $1 AND retracted_at IS NULL
      ORDER BY created_at DESC, id DESC
      LIMIT $2 OFFSET $3`,
    [recipientId, limit, offset],
  );
  return rows;
}

export async function findCounts(db: Queryable, recipientId: string): Promise<NotificationCounts> {
  const { rows } = await db.query<NotificationCounts>('SELECT total, unread FROM notification_counts WHERE recipient_id = $1', [recipientId]);
  return rows[0] ?? { total: 0, unread: 0 };
}

/**
 * Marks the recipient's unread notifications among `ids` read, and takes them off the unread count, in
 * one statement; returns how many changed. Ids of other recipients, read ones and unknown ones match
 * nothing. Two calls racing on the same ids count each change once: the second waits for the first's
 * row locks, then finds the rows read.
 */
export async function markRead(db: Queryable, recipientId: string, ids: string[]): Promise<number> {
  const { rows } = await db.query<{ updated: number }>(
    `WITH changed AS (
       UPDATE notifications SET is_read = true
        WHERE id = ANY($2::uuid[]) AND recipient_id = $1 AND NOT is_read AND retracted_at IS NULL
       RETURNING 1
     ), uncounted AS (
       UPDATE notification_counts SET unread = unread - (SELECT count(*) FROM changed)
        WHERE recipient_id = $1 AND EXISTS (SELECT 1 FROM changed)
     )
     SELECT count(*)::int AS updated FROM changed`,
    [recipientId, ids],
  );
  return rows[0]!.updated;
}

/**
 * Retracts the notification of a mention taken back, and takes it off its recipient's counts, in one
 * statement. When the mention's notification is not there yet (its event comes later), `tombstone` is
 * stored already retracted in its place, so that the mention never notifies.
 */
export async function retractMention(db: Queryable, id: string, sourceEventId: string, tombstone: NewNotification, retractedAt: string): Promise<void> {
  await db.query(
    `WITH retracted AS (
       UPDATE notifications SET retracted_at = $10
        WHERE recipient_id = $2 AND comment_id = $7 AND retracted_at IS NULL
       RETURNING is_read
     ), tombstone AS (
       INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, retracted_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
        WHERE NOT EXISTS (SELECT 1 FROM notifications WHERE recipient_id = $2 AND comment_id = $7)
       ON CONFLICT DO NOTHING
     )
     UPDATE notification_counts
        SET total = total - (SELECT count(*) FROM retracted), unread = unread - (SELECT count(*) FROM retracted WHERE NOT is_read)
      WHERE recipient_id = $2 AND EXISTS (SELECT 1 FROM retracted)`,
    [id, tombstone.recipientId, tombstone.type, tombstone.actorId, tombstone.contentType, tombstone.contentId, tombstone.commentId, tombstone.createdAt, sourceEventId, retractedAt],
  );
}

/**
 * Makes the changes of one user's notifications about one comment wait for each other, so that a
 * mention and its retraction handled at the same moment cannot both find nothing there.
 */
export async function lockCommentNotifications(db: Queryable, recipientId: string, commentId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`notifications:${recipientId}:${commentId}`]);
}
