import { type ExportPageQuery, nextAfter } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { findCommentsOfAuthorAfter } from './repository.js';

/** A user's own live comments, a page at a time, for their data export (docs/api.md §11.2). */
export function dataExport(pool: Pool) {
  return {
    async comments(userId: string, { after, limit }: ExportPageQuery) {
      const items = await findCommentsOfAuthorAfter(pool, userId, after ?? null, limit);
      return { items, next: nextAfter(items, limit) };
    },
  };
}

export type DataExport = ReturnType<typeof dataExport>;
