import type { ContentType } from '@recipes/contracts';
import { type ListingPage, type ListingRequest, type Queryable, readListing } from '@recipes/db';

/** A row of `saved_items`, as the domain sees it. */
export interface SavedItemRecord {
  id: string;
  userId: string;
  contentType: ContentType;
  contentId: string;
  createdAt: Date;
}

/** A saved item with what the read models know of its content and the content's author. */
export interface SavedItemRow extends SavedItemRecord {
  title: string;
  coverImageUrl: string | null;
  authorId: string;
  /** Null when the users read model has not heard of the author yet. */
  authorUsername: string | null;
  authorAvatarUrl: string | null;
}

/** Which of a user's saved items a listing shows. */
export interface SavedItemFilter {
  userId: string;
  contentType?: ContentType;
  standaloneOnly: boolean;
}

const columns = `id, user_id AS "userId", content_type AS "contentType", content_id AS "contentId", created_at AS "createdAt"`;

// Content and author are joined when read, so a listing shows their state now, not when the item was saved.
export const rowColumns = `s.id, s.user_id AS "userId", s.content_type AS "contentType", s.content_id AS "contentId",
  s.created_at AS "createdAt", c.title, c.cover_image_url AS "coverImageUrl", c.author_id AS "authorId",
  u.username AS "authorUsername", u.avatar_url AS "authorAvatarUrl"`;
export const withContent = `JOIN content_items c ON c.id = s.content_id LEFT JOIN users u ON u.id = c.author_id`;

/**
 * Locks the content's read-model row until commit, when the content is there and not deleted. A deletion
 * arriving meanwhile waits, and then finds (and removes) the item saved here.
 */
export async function lockLiveContent(db: Queryable, contentType: ContentType, contentId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM content_items WHERE id = $1 AND content_type = $2 AND NOT deleted FOR SHARE',
    [contentId, contentType],
  );
  return rowCount === 1;
}

/** The new item, or undefined when the user had saved this content already. */
export async function insertSavedItem(
  db: Queryable,
  item: Omit<SavedItemRecord, 'createdAt'>,
): Promise<SavedItemRecord | undefined> {
  const { rows } = await db.query<SavedItemRecord>(
    `INSERT INTO saved_items (id, user_id, content_type, content_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, content_type, content_id) DO NOTHING RETURNING ${columns}`,
    [item.id, item.userId, item.contentType, item.contentId],
  );
  return rows[0];
}

export async function findSavedItemOfContent(
  db: Queryable,
  userId: string,
  contentType: ContentType,
  contentId: string,
): Promise<SavedItemRecord | undefined> {
  const { rows } = await db.query<SavedItemRecord>(
    `SELECT ${columns} FROM saved_items WHERE user_id = $1 AND content_type = $2 AND content_id = $3`,
    [userId, contentType, contentId],
  );
  return rows[0];
}

export async function findSavedItem(db: Queryable, id: string): Promise<SavedItemRecord | undefined> {
  const { rows } = await db.query<SavedItemRecord>(`SELECT ${columns} FROM saved_items WHERE id = $1`, [id]);
  return rows[0];
}

/** Locks the item until commit, as adding it to a collection changes its row. */
export async function lockSavedItem(db: Queryable, id: string): Promise<SavedItemRecord | undefined> {
  const { rows } = await db.query<SavedItemRecord>(
    `SELECT ${columns} FROM saved_items WHERE id = $1 FOR NO KEY UPDATE`,
    [id],
  );
  return rows[0];
}

/** Removes the item, and with it its places in collections (ON DELETE CASCADE). */
export async function deleteSavedItem(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM saved_items WHERE id = $1', [id]);
  return rowCount === 1;
}

export async function findSavedItemRow(db: Queryable, id: string): Promise<SavedItemRow | undefined> {
  const { rows } = await db.query<SavedItemRow>(
    `SELECT ${rowColumns} FROM saved_items s ${withContent} WHERE s.id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * One page of a user's listing, by number or after a position (a keyset seek on the partial index the
 * filters match), and how many items it holds in all, from the counts the triggers of migrations/002
 * keep: one statement, so the page and its total agree (`readListing`). The filters are written into the
 * SQL rather than passed as parameters that may be null, so that the planner sees which partial index
 * (migrations/001) matches them.
 */
export async function findSavedItemPage(
  db: Queryable,
  { userId, contentType, standaloneOnly }: SavedItemFilter,
  request: ListingRequest,
): Promise<ListingPage<SavedItemRow>> {
  const values: unknown[] = [userId];
  const [items, totals] = [['s.user_id = $1'], ['user_id = $1']];
  if (contentType) {
    const parameter = `$${values.push(contentType)}`;
    items.push(`s.content_type = ${parameter}`);
    totals.push(`content_type = ${parameter}`);
  }
  if (standaloneOnly) {
    items.push('s.collection_count = 0');
    totals.push('standalone');
  }
  return readListing<SavedItemRow>(
    db,
    {
      count: `SELECT coalesce(sum(count), 0)::int AS total FROM saved_item_totals WHERE ${totals.join(' AND ')}`,
      columns: rowColumns,
      from: `FROM saved_items s ${withContent} WHERE ${items.join(' AND ')}`,
      order: { at: 's.created_at', id: 's.id', idType: 'uuid', direction: 'desc' },
    },
    values,
    request,
  );
}

/**
 * One page of a collection, most recently added first (by number or after a position), and how many items
 * it holds (its kept count): one statement (`readListing`).
 */
export async function findCollectionItemPage(
  db: Queryable,
  collectionId: string,
  request: ListingRequest,
): Promise<ListingPage<SavedItemRow>> {
  return readListing<SavedItemRow>(
    db,
    {
      count: 'SELECT item_count AS total FROM collections WHERE id = $1',
      columns: rowColumns,
      from: `FROM collection_items ci JOIN saved_items s ON s.id = ci.saved_item_id ${withContent} WHERE ci.collection_id = $1`,
      order: { at: 'ci.added_at', id: 'ci.saved_item_id', idType: 'uuid', direction: 'desc' },
    },
    [collectionId],
    request,
  );
}
