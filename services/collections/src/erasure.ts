import { type Pool, withTransaction } from '@recipes/db';
import { deleteRowsOf, eachIn, type ErasureStep, idsOf, retireItemsOf } from '@recipes/runtime';
import type { Collections } from './collections.js';
import type { SavedItems } from './saved-items.js';

/**
 * What collections erases of a deleted user (docs/api.md §11.2), as if they had done it themselves: each
 * collection through `delete` (so `collection.deleted` closes its comments and retracts what it caused),
 * each saved item through `unsave` (so the counts follow); then the deleted collections themselves, the
 * user's totals and what the directories knew of them (their recipes and posts as deleted, so that
 * others' saved items of them go).
 */
export function erasureSteps(pool: Pool, collections: Collections, savedItems: SavedItems): ErasureStep[] {
  return [
    async (userId, limit, correlationId) =>
      eachIn(
        await idsOf(
          pool,
          'SELECT id FROM collections WHERE owner_id = $1 AND NOT deleted ORDER BY id LIMIT $2',
          userId,
          limit,
        ),
        (id) => collections.delete(id, userId, correlationId),
      ),
    async (userId, limit) =>
      withTransaction(pool, async (tx) => {
        const ids = await idsOf(
          tx,
          'SELECT id FROM collections WHERE owner_id = $1 AND deleted LIMIT $2 FOR UPDATE',
          userId,
          limit,
        );
        await tx.query('DELETE FROM collection_items WHERE collection_id = ANY($1::uuid[])', [ids]);
        await tx.query('DELETE FROM collections WHERE id = ANY($1::uuid[])', [ids]);
        return ids.length;
      }),
    async (userId, limit) =>
      eachIn(
        await idsOf(pool, 'SELECT id FROM saved_items WHERE user_id = $1 ORDER BY id LIMIT $2', userId, limit),
        (id) => savedItems.unsave(id, userId),
      ),
    deleteRowsOf(pool, 'saved_item_totals', 'user_id'),
    retireItemsOf(pool, 'content_items'),
    deleteRowsOf(pool, 'users', 'id'),
  ];
}
