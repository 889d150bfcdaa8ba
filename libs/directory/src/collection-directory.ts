import { type CollectionSnapshot, collectionSnapshotSchema, NOBODY } from '@recipes/contracts';
import type { Pool, Queryable } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { z } from 'zod';
import { InternalClient } from './internal-client.js';
import { OwnerLookups, type OwnerLookupsSettings } from './owner-lookups.js';

/** A deleted collection keeps no owner or name, as a deleted recipe keeps no author or title (content-directory.ts). */
async function upsertCollection(db: Queryable, collection: CollectionSnapshot): Promise<void> {
  await db.query(
    `INSERT INTO known_collections (id, owner_id, name, deleted, revision, created_at)
     VALUES ($1, CASE WHEN $4 THEN $7::uuid ELSE $2::uuid END, CASE WHEN $4 THEN '' ELSE $3 END, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE
       SET owner_id = EXCLUDED.owner_id, name = EXCLUDED.name, deleted = EXCLUDED.deleted, revision = EXCLUDED.revision
       WHERE known_collections.revision < EXCLUDED.revision`,
    [
      collection.id,
      collection.ownerId,
      collection.name,
      collection.deleted,
      collection.revision,
      collection.createdAt,
      NOBODY,
    ],
  );
}

const oneCollection = z.object({ collection: collectionSnapshotSchema });

export interface CollectionDirectorySettings extends OwnerLookupsSettings {
  pool: Pool;
  /** The collections service, for collections the events have not brought yet (read-your-writes). */
  collectionsUrl: string;
  timeoutMs?: number;
}

/**
 * This service's knowledge of collections. Events keep it current; a collection it has not heard of yet
 * (created a moment ago) is asked of the collections service once and remembered, and one that service
 * says does not exist is not asked about again for a few seconds (owner-lookups.ts).
 */
export class CollectionDirectory {
  private readonly pool: Pool;
  private readonly collections: InternalClient;
  private readonly lookups: OwnerLookups<CollectionSnapshot>;

  constructor({ pool, collectionsUrl, timeoutMs = 2_000, ...lookups }: CollectionDirectorySettings) {
    this.pool = pool;
    this.collections = new InternalClient('collections', collectionsUrl, timeoutMs);
    this.lookups = new OwnerLookups(lookups);
  }

  /** Takes in a snapshot an event brought, once per event; an older one than held changes nothing. */
  async remember(collection: CollectionSnapshot, event: { id: string; type: string }): Promise<void> {
    await handleOnce(this.pool, event, (tx) => upsertCollection(tx, collection));
  }

  /** The collection, deleted or not; undefined when it never existed. */
  async find(id: string): Promise<CollectionSnapshot | undefined> {
    const { rows } = await this.pool.query<CollectionSnapshot>(
      `SELECT id, owner_id AS "ownerId", name, deleted, revision,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
         FROM known_collections WHERE id = $1`,
      [id],
    );
    if (rows[0]) return rows[0];
    return this.lookups.find(id, async () => {
      const body = await this.collections.get(`/internal/collections/${id}`);
      if (body === undefined) return undefined;
      const collection = oneCollection.parse(body).collection;
      await upsertCollection(this.pool, collection);
      return collection;
    });
  }
}
