import type { Queryable } from '@recipes/db';
import { type CollectionRecord, columns } from './collections.js';
import { rowColumns, type SavedItemRow, withContent } from './saved-items.js';

/** The owner's live collections after `after` by id, for their data export (docs/api.md §11.2). */
export async function findCollectionsOfOwnerAfter(
  db: Queryable,
  ownerId: string,
  after: string | null,
  limit: number,
): Promise<CollectionRecord[]> {
  const { rows } = await db.query<CollectionRecord>(
    `SELECT ${columns} FROM collections WHERE owner_id = $1 AND NOT deleted AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [ownerId, after, limit],
  );
  return rows;
}

/** The user's saved items after `after` by id, with their content, for their data export. */
export async function findSavedItemsOfUserAfter(
  db: Queryable,
  userId: string,
  after: string | null,
  limit: number,
): Promise<SavedItemRow[]> {
  const { rows } = await db.query<SavedItemRow>(
    `SELECT ${rowColumns} FROM saved_items s ${withContent} WHERE s.user_id = $1 AND ($2::uuid IS NULL OR s.id > $2) ORDER BY s.id LIMIT $3`,
    [userId, after, limit],
  );
  return rows;
}
