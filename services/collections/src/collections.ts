import {
  collectionCreated,
  collectionDeleted,
  type CollectionSnapshot,
  conflict,
  createEvent,
  forbidden,
  newId,
  notFound,
  type ListPosition,
  type ListRequest,
} from '@recipes/contracts';
import { type Pool, type Queryable, withTransaction } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import { enqueue } from '@recipes/outbox';
import * as repository from './repository/collections.js';
import type { CollectionRecord } from './repository/collections.js';
import * as savedItemsRepository from './repository/saved-items.js';
import type { SavedItemRow } from './repository/saved-items.js';
import { requireUser } from './users.js';

const PRODUCER = 'collections';

const toSnapshot = ({ id, ownerId, name, deleted, revision, createdAt }: CollectionRecord): CollectionSnapshot => ({
  id,
  ownerId,
  name,
  deleted,
  revision,
  createdAt: createdAt.toISOString(),
});

/** The collection when it exists and the caller owns it; 404, then 403, otherwise (docs/api.md §1 check order). */
async function ownedCollection(db: Queryable, id: string, callerId: string): Promise<CollectionRecord> {
  const collection = await repository.findCollection(db, id);
  if (!collection || collection.deleted) throw notFound('Collection not found');
  if (collection.ownerId !== callerId) throw forbidden('Only the owner can change this collection');
  return collection;
}

/**
 * Collections and what is in them. Creating and deleting one is stored together with the event that
 * tells the comments service. Saved items are locked before collections wherever both are (see
 * `lockItemsOf`), so that concurrent changes wait for each other instead of deadlocking.
 */
export function collections({ pool, users }: { pool: Pool; users: UserDirectory }) {
  async function find(id: string): Promise<CollectionRecord> {
    const collection = await repository.findCollection(pool, id);
    if (!collection || collection.deleted) throw notFound('Collection not found');
    return collection;
  }

  return {
    async create(
      ownerId: string,
      fields: { name: string; description: string },
      correlationId: string,
    ): Promise<CollectionRecord> {
      await users.caller(ownerId);
      return withTransaction(pool, async (tx) => {
        const collection = await repository.insertCollection(tx, { id: newId(), ownerId, ...fields });
        await enqueue(
          tx,
          createEvent(collectionCreated, toSnapshot(collection), { producer: PRODUCER, correlationId }),
        );
        return collection;
      });
    },

    /** A collection that exists and is not deleted. */
    find,

    /** Soft: the collection's saved items stay saved, and are standalone unless another collection has them. */
    async delete(id: string, callerId: string, correlationId: string): Promise<void> {
      await withTransaction(pool, async (tx) => {
        await ownedCollection(tx, id, callerId);
        await repository.lockItemsOf(tx, id);
        const deleted = await repository.markCollectionDeleted(tx, id);
        if (!deleted) throw notFound('Collection not found');
        await repository.removeAllItems(tx, id);
        await enqueue(tx, createEvent(collectionDeleted, toSnapshot(deleted), { producer: PRODUCER, correlationId }));
      });
    },

    async listOwnedBy(
      ownerId: string,
      request: ListRequest,
    ): Promise<{ collections: CollectionRecord[]; total: number; next: ListPosition | null }> {
      await requireUser(users, ownerId);
      const { rows, total, next } = await repository.findCollectionPage(pool, ownerId, request);
      return { collections: rows, total, next };
    },

    async items(
      id: string,
      request: ListRequest,
    ): Promise<{ rows: SavedItemRow[]; total: number; next: ListPosition | null }> {
      await find(id);
      // The count kept with the collection, read with the page: one deleted since is empty, with a total of 0.
      return savedItemsRepository.findCollectionItemPage(pool, id, request);
    },

    /** Adds one of the owner's saved items; 404 for someone else's, 409 when it is in the collection already. */
    async addItem(id: string, callerId: string, savedItemId: string): Promise<void> {
      await withTransaction(pool, async (tx) => {
        await ownedCollection(tx, id, callerId);
        const item = await savedItemsRepository.lockSavedItem(tx, savedItemId);
        if (!item || item.userId !== callerId) throw notFound('Saved item not found');
        // Deleted since it was looked at: the lock now holds it as it is until commit.
        if (!(await repository.lockLiveCollection(tx, id))) throw notFound('Collection not found');
        if (!(await repository.addCollectionItem(tx, id, savedItemId)))
          throw conflict('The item is already in this collection');
      });
    },

    /** Takes the item out of the collection and out of the owner's saved items, so out of every collection. */
    async removeItem(id: string, callerId: string, savedItemId: string): Promise<void> {
      await withTransaction(pool, async (tx) => {
        await ownedCollection(tx, id, callerId);
        // Saved item before collection, the order of every change here (see lockItemsOf), so none deadlock.
        await savedItemsRepository.lockSavedItem(tx, savedItemId);
        // Deleted since it was looked at: nothing of it may be touched any more.
        if (!(await repository.lockLiveCollection(tx, id))) throw notFound('Collection not found');
        if (!(await repository.isInCollection(tx, id, savedItemId)))
          throw notFound('The item is not in this collection');
        await savedItemsRepository.deleteSavedItem(tx, savedItemId);
      });
    },

    /** For the comments service: the collection as it is, deleted or not; undefined when it never existed. */
    async snapshot(id: string): Promise<CollectionSnapshot | undefined> {
      const collection = await repository.findCollection(pool, id);
      return collection && toSnapshot(collection);
    },
  };
}

export type Collections = ReturnType<typeof collections>;
