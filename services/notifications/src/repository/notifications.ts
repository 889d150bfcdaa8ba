import type { EventData, EventEnvelope, notificationCreated } from '@recipes/contracts';
import { type ListingPage, type ListingRequest, type Queryable, readListing } from '@recipes/db';
import type { NewNotification, NotificationRecord, NotificationType } from './rows.js';

export interface NotificationCounts {
  total: number;
  unread: number;
}

/**
 * A notification just stored: its place in the recipient's sequence, their unread count with it, and whether a stream
 * of theirs is open.
 */
export interface StoredNotification {
  sequence: number;
  unread: number;
  streamOpen: boolean;
}

/*
 * The advisory locks are SQL functions (migrations/011_store_notification.sql), so that `store_notifications`
 * and the statements below take the same ones.
 */

/**
 * The recipient's lock, held to the end of the transaction (an advisory lock: it needs no row, so opening
 * a stream leaves none behind). Storing or marking their notifications and opening a stream of theirs
 * take it, so that each sees whatever the other committed (see `openStream`). Always taken before their
 * counts row, never after it.
 */
export async function lockRecipient(db: Queryable, recipientId: string): Promise<void> {
  await db.query('SELECT lock_recipient($1::uuid)', [recipientId]);
}

/**
 * The lock of one recipe, post or collection (SQL parameters `type` and `id`): storing a notification about
 * it and retracting those about it as it is deleted wait for each other. Taken before any other lock.
 */
export const contentLock = (type: string, id: string) => `lock_content(${type}::text, ${id}::uuid)`;

/** A notification not stored: the rule that withheld it (src/rules). */
export interface WithheldNotification {
  withheldBy: string;
}

/** What `store_notifications` answers for a notification (it gives no row when its event was stored before). */
interface StoreAnswer {
  sequence: string | null;
  unread: number | null;
  streamOpen: boolean | null;
  withheldBy: string | null;
}

function stored(answer: StoreAnswer): StoredNotification | WithheldNotification {
  if (answer.withheldBy !== null) return { withheldBy: answer.withheldBy };
  return { sequence: Number(answer.sequence), unread: answer.unread!, streamOpen: answer.streamOpen! };
}

/** A notification to store: its id, what it says, and the event it comes from. */
export interface NotificationToStore {
  id: string;
  source: Pick<EventEnvelope, 'id' | 'type'>;
  notification: NewNotification;
}

/**
 * Stores notifications, each once per source event, and counts them for their recipients. An event stored before
 * (its inbox row) changes nothing and gives undefined; a notification a rule of src/rules withholds
 * (`withholdingRules`: deleted content or comment, an actor the recipient silenced, a type turned off, a
 * comment that notified them already, an erased user) changes nothing but the inbox row, counts included, and
 * gives the rule's name. Answers in the order given.
 *
 * One round trip: one call of `store_notifications` (rendered from the rules by src/rules/store-function.ts, which
 * says how it takes the batch's locks in order, and how its locks and snapshots make the rules hold at the
 * commit); atomic by itself, so it needs no transaction (in a caller's, its locks are held to that one's commit).
 * `streamOpen` is what `hasOpenStream` would say under the recipient's lock, without a round trip of its own.
 */
export async function insertNotifications(
  db: Queryable,
  batch: readonly NotificationToStore[],
): Promise<(StoredNotification | WithheldNotification | undefined)[]> {
  const { rows } = await db.query<StoreAnswer & { place: number }>(
    `SELECT place, stored_sequence AS sequence, unread_count AS unread, stream_is_open AS "streamOpen", withheld_by AS "withheldBy"
       FROM store_notifications($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::uuid[], $7::uuid[],
                                $8::timestamptz[], $9::uuid[], $10::text[])`,
    [
      batch.map(({ id }) => id),
      batch.map(({ notification }) => notification.recipientId),
      batch.map(({ notification }) => notification.type),
      batch.map(({ notification }) => notification.actorId),
      batch.map(({ notification }) => notification.contentType),
      batch.map(({ notification }) => notification.contentId),
      batch.map(({ notification }) => notification.commentId),
      batch.map(({ notification }) => notification.createdAt),
      batch.map(({ source }) => source.id),
      batch.map(({ source }) => source.type),
    ],
  );
  const answers = new Array<StoredNotification | WithheldNotification | undefined>(batch.length);
  for (const row of rows) answers[row.place - 1] = stored(row);
  return answers;
}

/** One notification, as `insertNotifications` stores a batch. */
export async function insertNotification(
  db: Queryable,
  id: string,
  source: Pick<EventEnvelope, 'id' | 'type'>,
  notification: NewNotification,
): Promise<StoredNotification | WithheldNotification | undefined> {
  const [answer] = await insertNotifications(db, [{ id, source, notification }]);
  return answer;
}

/** A notification stored, as its `notification.created` tells it, and whether a stream of its recipient is open. */
export interface StoredFrom {
  data: EventData<typeof notificationCreated>;
  streamOpen: boolean;
}

/**
 * The live notification the event `sourceId` stored, if any, with the recipient's unread count now and whether a
 * stream of theirs is open: what to prompt again when the event comes again (its prompt may not have gone).
 */
export async function findStoredFrom(db: Queryable, sourceId: string): Promise<StoredFrom | undefined> {
  const { rows } = await db.query<StoredFrom>(
    `SELECT json_build_object('id', n.id, 'recipientId', n.recipient_id, 'sequence', n.sequence, 'type', n.type,
              'actorId', n.actor_id, 'contentType', n.content_type, 'contentId', n.content_id, 'commentId', n.comment_id,
              'createdAt', to_char(n.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'unreadCount', c.unread) AS data,
            EXISTS (SELECT 1 FROM open_streams s WHERE s.recipient_id = n.recipient_id) AS "streamOpen"
       FROM notifications n JOIN notification_counts c ON c.recipient_id = n.recipient_id
      WHERE n.source_event_id = $1 AND n.retracted_at IS NULL`,
    [sourceId],
  );
  return rows[0];
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
export async function findPage(
  db: Queryable,
  recipientId: string,
  filter: ListingFilter,
  request: ListingRequest,
): Promise<ListingPage<NotificationRecord>> {
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

/**
 * What changes whenever the recipient's listing or unread count would (their ETag, docs/api.md §7); 0 before anything.
 */
export async function findVersion(db: Queryable, recipientId: string): Promise<number> {
  const { rows } = await db.query<{ version: string }>(
    'SELECT version FROM notification_counts WHERE recipient_id = $1',
    [recipientId],
  );
  return rows[0] ? Number(rows[0].version) : 0;
}

export async function findCounts(db: Queryable, recipientId: string): Promise<NotificationCounts> {
  const { rows } = await db.query<NotificationCounts>(
    'SELECT total, unread FROM notification_counts WHERE recipient_id = $1',
    [recipientId],
  );
  return rows[0] ?? { total: 0, unread: 0 };
}

/**
 * Makes the changes of one user's notifications about one comment wait for each other, so that a
 * mention and its retraction handled at the same moment cannot both find nothing there.
 */
export async function lockCommentNotifications(db: Queryable, recipientId: string, commentId: string): Promise<void> {
  await db.query('SELECT lock_comment_notifications($1::uuid, $2::uuid)', [recipientId, commentId]);
}
