import type { Queryable } from '@recipes/db';

/** How many notifications a marking changed, and the unread count after it (undefined when none changed). */
export interface Marked {
  updated: number;
  unread: number | undefined;
}

/** Takes the notifications the `changed` CTE marked read off their recipient's unread count; one statement with it. */
const uncount = `uncounted AS (
       UPDATE notification_counts SET unread = unread - (SELECT count(*) FROM changed), version = version + 1
        WHERE recipient_id = $1 AND EXISTS (SELECT 1 FROM changed)
       RETURNING unread
     )
     SELECT (SELECT count(*)::int FROM changed) AS updated, (SELECT unread FROM uncounted) AS unread`;

/**
 * Marks the recipient's unread notifications among `ids` read, and takes them off the unread count, in
 * one statement. Ids of other recipients, read ones and unknown ones match nothing. Two calls racing on
 * the same ids count each change once: the second waits for the first's row locks, then finds the rows read.
 */
export async function markRead(db: Queryable, recipientId: string, ids: string[]): Promise<Marked> {
  const { rows } = await db.query<{ updated: number; unread: number | null }>(
    `WITH changed AS (
       UPDATE notifications SET is_read = true
        WHERE id = ANY($2::uuid[]) AND recipient_id = $1 AND NOT is_read AND retracted_at IS NULL
       RETURNING 1
     ), ${uncount}`,
    [recipientId, ids],
  );
  return { updated: rows[0]!.updated, unread: rows[0]!.unread ?? undefined };
}

/** Where a listing stands: a notification's place in the newest-first order. */
export interface ListingPlace {
  createdAt: Date;
  id: string;
}

/** The place of the recipient's notification `id` in their listing; undefined when it is not theirs. */
export async function findListingPlace(
  db: Queryable,
  recipientId: string,
  id: string,
): Promise<ListingPlace | undefined> {
  const { rows } = await db.query<ListingPlace>(
    'SELECT created_at AS "createdAt", id FROM notifications WHERE id = $1 AND recipient_id = $2 AND retracted_at IS NULL',
    [id, recipientId],
  );
  return rows[0];
}

/**
 * Marks read every unread notification of the recipient, or those listed at or after `upTo` (created at or before it).
 */
export async function markAllRead(db: Queryable, recipientId: string, upTo: ListingPlace | undefined): Promise<Marked> {
  const { rows } = await db.query<{ updated: number; unread: number | null }>(
    `WITH changed AS (
       UPDATE notifications SET is_read = true
        WHERE recipient_id = $1 AND NOT is_read AND retracted_at IS NULL
          AND ($2::timestamptz IS NULL OR (created_at, id) <= ($2::timestamptz, $3::uuid))
       RETURNING 1
     ), ${uncount}`,
    [recipientId, upTo?.createdAt ?? null, upTo?.id ?? null],
  );
  return { updated: rows[0]!.updated, unread: rows[0]!.unread ?? undefined };
}

/** Marks read every unread notification of the recipient's group `groupKey` (docs/api.md §10.5). */
export async function markGroupRead(db: Queryable, recipientId: string, groupKey: string): Promise<Marked> {
  const { rows } = await db.query<{ updated: number; unread: number | null }>(
    `WITH changed AS (
       UPDATE notifications SET is_read = true
        WHERE recipient_id = $1 AND group_key = $2 AND NOT is_read AND retracted_at IS NULL
       RETURNING 1
     ), ${uncount}`,
    [recipientId, groupKey],
  );
  return { updated: rows[0]!.updated, unread: rows[0]!.unread ?? undefined };
}
