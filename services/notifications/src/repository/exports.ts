import type { Queryable } from '@recipes/db';
import type { NotificationRecord } from './rows.js';

/** The recipient's live notifications after `after` by id, for their data export (docs/api.md §11.2). */
export async function findNotificationsOfRecipientAfter(
  db: Queryable,
  recipientId: string,
  after: string | null,
  limit: number,
): Promise<NotificationRecord[]> {
  const { rows } = await db.query<NotificationRecord>(
    `SELECT id, type, group_key AS "groupKey", actor_id AS "actorId", content_type AS "contentType", content_id AS "contentId",
            comment_id AS "commentId", is_read AS "isRead", created_at AS "createdAt"
       FROM notifications
      WHERE recipient_id = $1 AND retracted_at IS NULL AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [recipientId, after, limit],
  );
  return rows;
}
