import { type ListingPage, type ListingRequest, type Queryable, readListing } from '@recipes/db';

/** A row of `collections`, as the domain sees it. */
export interface CollectionRecord {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  itemCount: number;
  deleted: boolean;
  revision: number;
  createdAt: Date;
}

export const columns = `id, owner_id AS "ownerId", name, description, item_count AS "itemCount", deleted, revision, created_at AS "createdAt"`;

export async function insertCollection(
  db: Queryable,
  collection: Pick<CollectionRecord, 'id' | 'ownerId' | 'name' | 'description'>,
): Promise<CollectionRecord> {
  const { rows } = await db.query<CollectionRecord>(
    `INSERT INTO collections (id, owner_id, name, description) VALUES ($1, $2, $3, $4) RETURNING ${columns}`,
    [collection.id, collection.ownerId, collection.name, collection.description],
  );
  return rows[0]!;
}

/** Deleted or not; undefined when it never existed. */
export async function findCollection(db: Queryable, id: string): Promise<CollectionRecord | undefined> {
  const { rows } = await db.query<CollectionRecord>(`SELECT ${columns} FROM collections WHERE id = $1`, [id]);
  return rows[0];
}

/** Locks the collection until commit, when it is not deleted. */
export async function lockLiveCollection(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM collections WHERE id = $1 AND NOT deleted FOR NO KEY UPDATE', [
    id,
  ]);
  return rowCount === 1;
}

/**
 * Soft deletion, keeping no text (migrations/006): no name, no description. Undefined when it was deleted already.
 */
export async function markCollectionDeleted(db: Queryable, id: string): Promise<CollectionRecord | undefined> {
  const { rows } = await db.query<CollectionRecord>(
    `UPDATE collections SET deleted = true, revision = revision + 1, name = '', description = ''
      WHERE id = $1 AND NOT deleted RETURNING ${columns}`,
    [id],
  );
  return rows[0];
}

/**
 * One page of a user's live collections, newest first (by number or after a position), and how many they
 * have (a handful, not thousands: counting them is cheap): one statement, so the page and its total agree
 * (`readListing`).
 */
export async function findCollectionPage(
  db: Queryable,
  ownerId: string,
  request: ListingRequest,
): Promise<ListingPage<CollectionRecord>> {
  return readListing<CollectionRecord>(
    db,
    {
      count: 'SELECT count(*)::int AS total FROM collections WHERE owner_id = $1 AND NOT deleted',
      columns,
      from: 'FROM collections WHERE owner_id = $1 AND NOT deleted',
      order: { at: 'created_at', id: 'id', idType: 'uuid', direction: 'desc' },
    },
    [ownerId],
    request,
  );
}

/** False when the item is in the collection already. */
export async function addCollectionItem(db: Queryable, collectionId: string, savedItemId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO collection_items (collection_id, saved_item_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [collectionId, savedItemId],
  );
  return rowCount === 1;
}

export async function isInCollection(db: Queryable, collectionId: string, savedItemId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM collection_items WHERE collection_id = $1 AND saved_item_id = $2',
    [collectionId, savedItemId],
  );
  return rowCount === 1;
}

/**
 * Locks the saved items of a collection, in one order, before the collection is deleted: saved items are
 * locked before collections everywhere (an unsaved item cascades to its collections), so none deadlock.
 */
export async function lockItemsOf(db: Queryable, collectionId: string): Promise<void> {
  await db.query(
    `SELECT 1 FROM saved_items WHERE id IN (SELECT saved_item_id FROM collection_items WHERE collection_id = $1)
      ORDER BY id FOR NO KEY UPDATE`,
    [collectionId],
  );
}

/** Empties a collection; its saved items stay saved. */
export async function removeAllItems(db: Queryable, collectionId: string): Promise<void> {
  await db.query('DELETE FROM collection_items WHERE collection_id = $1', [collectionId]);
}
