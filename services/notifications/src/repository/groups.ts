import { type ListingPage, type ListingRequest, type Queryable, readListing } from '@recipes/db';
import type { NotificationType, TargetType } from './rows.js';

/** A group of the recipient's notifications (docs/api.md §10.5), retracted ones left out. */
export interface GroupRecord {
  groupKey: string;
  type: NotificationType;
  contentType: TargetType;
  contentId: string;
  count: number;
  unreadCount: number;
  /** Up to three distinct actors, the most recent first. */
  actorIds: string[];
  actorCount: number;
  latestNotificationId: string;
  latestAt: Date;
}

/** At most this many actors are shown per group. */
const SHOWN_ACTORS = 3;

/**
 * One page of the recipient's groups, latest first (by number or after a position), and how many there
 * are; with `unreadOnly`, only the groups with an unread notification (counts and actors still of the
 * whole group). The groups are aggregated from the recipient's notifications at read time, so that storing
 * one costs nothing more than its generated `group_key` and index entry (migrations/009): a page reads
 * all of the recipient's live notifications once (the groups' order is their latest one's, known only
 * then), and each group on it looks up its latest notification and actors on `notifications_group_idx`,
 * after the page is cut. One statement, so the page and its total agree (`readListing`).
 */
export async function findGroupPage(db: Queryable, recipientId: string, { unreadOnly }: { unreadOnly: boolean }, request: ListingRequest): Promise<ListingPage<GroupRecord>> {
  const ofGroup = 'n.recipient_id = $1 AND n.group_key = g.group_key AND n.retracted_at IS NULL';
  return readListing<GroupRecord>(
    db,
    {
      count: `SELECT count(DISTINCT group_key)::int AS total FROM notifications
               WHERE recipient_id = $1 AND retracted_at IS NULL${unreadOnly ? ' AND NOT is_read' : ''}`,
      columns: `g.group_key AS "groupKey", g.type, g.content_type AS "contentType", g.content_id AS "contentId",
                g.count, g.unread_count AS "unreadCount", g.actor_count AS "actorCount", g.latest_at AS "latestAt",
                (SELECT n.id FROM notifications n WHERE ${ofGroup} ORDER BY n.created_at DESC, n.id DESC LIMIT 1) AS "latestNotificationId",
                ARRAY(SELECT a.actor_id FROM (SELECT n.actor_id, max(n.created_at) AS latest FROM notifications n WHERE ${ofGroup} GROUP BY n.actor_id) AS a
                       ORDER BY a.latest DESC, a.actor_id DESC LIMIT ${SHOWN_ACTORS}) AS "actorIds"`,
      from: `FROM (SELECT group_key, min(type) AS type, min(content_type) AS content_type, min(content_id::text)::uuid AS content_id,
                          count(*)::int AS count, (count(*) FILTER (WHERE NOT is_read))::int AS unread_count,
                          count(DISTINCT actor_id)::int AS actor_count, max(created_at) AS latest_at
                     FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL
                    GROUP BY group_key${unreadOnly ? ' HAVING count(*) FILTER (WHERE NOT is_read) > 0' : ''}) AS g
             WHERE true`,
      order: { at: 'g.latest_at', id: 'g.group_key', idType: 'text', direction: 'desc' },
    },
    [recipientId],
    request,
  );
}

/** Whether the recipient has a live notification in the group. */
export async function hasGroup(db: Queryable, recipientId: string, groupKey: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM notifications WHERE recipient_id = $1 AND group_key = $2 AND retracted_at IS NULL LIMIT 1', [recipientId, groupKey]);
  return rows.length > 0;
}
