import { type ExportPageQuery, nextAfter } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { findCollectionsOfOwnerAfter, findSavedItemsOfUserAfter } from './repository/exports.js';
import type { Views } from './views.js';

/** A user's own collections and saved items, a page at a time, for their data export (docs/api.md §11.2). */
export function dataExport(pool: Pool, views: Views) {
  return {
    async collections(userId: string, { after, limit }: ExportPageQuery) {
      const records = await findCollectionsOfOwnerAfter(pool, userId, after ?? null, limit);
      return { items: await views.collections(records), next: nextAfter(records, limit) };
    },
    async savedItems(userId: string, { after, limit }: ExportPageQuery) {
      const rows = await findSavedItemsOfUserAfter(pool, userId, after ?? null, limit);
      return { items: await views.savedItems(rows), next: nextAfter(rows, limit) };
    },
  };
}

export type DataExport = ReturnType<typeof dataExport>;
