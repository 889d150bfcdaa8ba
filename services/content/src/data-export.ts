import { type ExportPageQuery, nextAfter } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { findPostsOfAuthorAfter, findRecipesOfAuthorAfter } from './repository/exports.js';

/** A user's own recipes and posts, a page at a time, for their data export (docs/api.md §11.2). */
export function dataExport(pool: Pool) {
  const page = async <T extends { id: string }>(
    find: (after: string | null, limit: number) => Promise<T[]>,
    { after, limit }: ExportPageQuery,
  ) => {
    const items = await find(after ?? null, limit);
    return { items, next: nextAfter(items, limit) };
  };
  return {
    recipes: (userId: string, query: ExportPageQuery) =>
      page((after, limit) => findRecipesOfAuthorAfter(pool, userId, after, limit), query),
    posts: (userId: string, query: ExportPageQuery) =>
      page((after, limit) => findPostsOfAuthorAfter(pool, userId, after, limit), query),
  };
}

export type DataExport = ReturnType<typeof dataExport>;
