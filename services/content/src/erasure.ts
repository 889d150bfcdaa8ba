import { type Pool, withTransaction } from '@recipes/db';
import { deleteRowsOf, eachIn, type ErasureStep, idsOf } from '@recipes/runtime';
import type { Posts } from './posts.js';
import type { Recipes } from './recipes.js';
import { dropReactionsOf } from './repository/reactions.js';

/**
 * What content erases of a deleted user (docs/api.md §11.2), as if they had done it themselves: their
 * recipes and posts go through `remove` (so `recipe.deleted` and `post.deleted` take other users' saved
 * items of them and the notifications of their tags), their favorites and reposts are taken back, each off
 * its recipe's count, deleted recipes' too (`dropReactionsOf`); then what a deletion keeps (the deleted
 * rows, their images and tags) goes for good.
 */
export function erasureSteps(pool: Pool, recipes: Recipes, posts: Posts): ErasureStep[] {
  const liveOf = (table: string) =>
    `SELECT id FROM ${table} WHERE author_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT $2`;
  /** Deletes a batch of the user's deleted recipes or posts, with what hangs on them. */
  const purge =
    (table: string, children: string[], key: string): ErasureStep =>
    async (userId, limit) =>
      withTransaction(pool, async (tx) => {
        const ids = await idsOf(
          tx,
          `SELECT id FROM ${table} WHERE author_id = $1 AND deleted_at IS NOT NULL LIMIT $2 FOR UPDATE`,
          userId,
          limit,
        );
        for (const child of children) await tx.query(`DELETE FROM ${child} WHERE ${key} = ANY($1::uuid[])`, [ids]);
        await tx.query(`DELETE FROM ${table} WHERE id = ANY($1::uuid[])`, [ids]);
        return ids.length;
      });
  return [
    async (userId, limit, correlationId) =>
      eachIn(await idsOf(pool, liveOf('recipes'), userId, limit), (id) => recipes.remove(id, userId, correlationId)),
    async (userId, limit, correlationId) =>
      eachIn(await idsOf(pool, liveOf('posts'), userId, limit), (id) => posts.remove(id, userId, correlationId)),
    (userId, limit) => dropReactionsOf(pool, 'favorite', userId, limit),
    (userId, limit) => dropReactionsOf(pool, 'repost', userId, limit),
    purge(
      'recipes',
      ['recipe_images', 'recipe_favorites', 'recipe_reposts', 'recipe_tags', 'recipe_comments'],
      'recipe_id',
    ),
    purge('posts', ['post_tags'], 'post_id'),
    deleteRowsOf(pool, 'recipe_tags', 'user_id'),
    deleteRowsOf(pool, 'post_tags', 'user_id'),
    deleteRowsOf(pool, 'budgets', 'key'),
    deleteRowsOf(pool, 'user_relations', 'user_id'),
    deleteRowsOf(pool, 'user_relations', 'target_id'),
    deleteRowsOf(pool, 'users', 'id'),
  ];
}
