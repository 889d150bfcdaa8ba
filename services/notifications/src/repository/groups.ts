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

/** A page of groups, and the point of the recipient's sequence it was ordered as of. */
export interface GroupPage extends ListingPage<GroupRecord> {
  /** Absent only when the page is empty. */
  asOf: string | undefined;
}

/**
 * One page of the recipient's groups, latest first (by number or after a position), and how many there
 * are; with `unreadOnly`, only the groups with an unread notification (counts and actors still of the
 * whole group). The groups are aggregated from the recipient's notifications at read time, so that storing
 * one costs nothing more than its generated `group_key` and index entry (migrations/009): a page reads
 * all of the recipient's notifications once (the groups' order is their latest one's, known only then),
 * and each group on it looks up its latest notification and actors on `notifications_group_idx`, after
 * the page is cut. One statement, so the page and its total agree (`readListing`).
 *
 * A group moves as notifications arrive in it or are retracted, so a walk orders its pages as the groups
 * stood at one point of the recipient's sequence (`asOf`, migrations/003 and 004: notifications and
 * retractions take their places in it, and commit in its order): the first page's, read in its own
 * statement, so that on it the order is the groups' current one; later pages get it from the cursor. A
 * group's place is then its latest notification as of that point, wherever it has moved since, and a
 * walk sees each group that was there at its start and still is exactly once, in one order. A group
 * begun since is left to the next walk (and to the stream, whose events carry `groupKey`). What a page
 * shows of each group (counts, actors, `latestAt`) is its current state.
 */
export async function findGroupPage(
  db: Queryable,
  recipientId: string,
  { unreadOnly }: { unreadOnly: boolean },
  request: ListingRequest,
  walkedAsOf: string | undefined,
): Promise<GroupPage> {
  const ofGroup = 'n.recipient_id = $1 AND n.group_key = g.group_key AND n.retracted_at IS NULL';
  const live = 'n.retracted_at IS NULL';
  const asOf =
    walkedAsOf === undefined
      ? 'coalesce((SELECT last_sequence FROM notification_counts WHERE recipient_id = $1), 0)'
      : '$2::bigint';
  const { rows, ...page } = await readListing<GroupRecord & { asOf: string }>(
    db,
    {
      count: `SELECT count(DISTINCT group_key)::int AS total FROM notifications
               WHERE recipient_id = $1 AND retracted_at IS NULL${unreadOnly ? ' AND NOT is_read' : ''}`,
      columns: `g.group_key AS "groupKey", g.type, g.content_type AS "contentType", g.content_id AS "contentId",
                g.count, g.unread_count AS "unreadCount", g.actor_count AS "actorCount", g.latest_at AS "latestAt", g.as_of::text AS "asOf",
                (SELECT n.id FROM notifications n WHERE ${ofGroup} ORDER BY n.created_at DESC, n.id DESC LIMIT 1) AS "latestNotificationId",
                ARRAY(SELECT a.actor_id FROM (SELECT n.actor_id, max(n.created_at) AS latest FROM notifications n WHERE ${ofGroup} GROUP BY n.actor_id) AS a
                       ORDER BY a.latest DESC, a.actor_id DESC LIMIT ${SHOWN_ACTORS}) AS "actorIds"`,
      // The notifications live now, and those live at the walk's point: retracted since, or not.
      from: `FROM (SELECT n.group_key, min(n.type) AS type, min(n.content_type) AS content_type, min(n.content_id::text)::uuid AS content_id,
                          (count(*) FILTER (WHERE ${live}))::int AS count, (count(*) FILTER (WHERE ${live} AND NOT n.is_read))::int AS unread_count,
                          (count(DISTINCT n.actor_id) FILTER (WHERE ${live}))::int AS actor_count, max(n.created_at) FILTER (WHERE ${live}) AS latest_at,
                          max(n.created_at) FILTER (WHERE n.sequence <= w.as_of) AS place_at, w.as_of
                     FROM notifications n, (SELECT ${asOf} AS as_of) AS w
                    WHERE n.recipient_id = $1 AND (${live} OR n.retraction_sequence > w.as_of)
                    GROUP BY n.group_key, w.as_of
                   HAVING count(*) FILTER (WHERE ${live}${unreadOnly ? ' AND NOT n.is_read' : ''}) > 0) AS g
             WHERE g.place_at IS NOT NULL`,
      order: { at: 'g.place_at', id: 'g.group_key', idType: 'text', direction: 'desc' },
    },
    walkedAsOf === undefined ? [recipientId] : [recipientId, walkedAsOf],
    request,
  );
  return { ...page, rows: rows.map(({ asOf: _, ...row }) => row), asOf: rows[0]?.asOf };
}

/** Whether the recipient has a live notification in the group. */
export async function hasGroup(db: Queryable, recipientId: string, groupKey: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM notifications WHERE recipient_id = $1 AND group_key = $2 AND retracted_at IS NULL LIMIT 1',
    [recipientId, groupKey],
  );
  return rows.length > 0;
}
