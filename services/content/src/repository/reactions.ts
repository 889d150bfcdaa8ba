import type { Queryable } from '@recipes/db';

export type Reaction = 'favorite' | 'repost';

const stores: Record<Reaction, { table: string; counter: string }> = {
  favorite: { table: 'recipe_favorites', counter: 'favorite_count' },
  repost: { table: 'recipe_reposts', counter: 'repost_count' },
};

/**
 * Adds (`active`) or removes a user's favorite or repost of a recipe that is not deleted, and returns the
 * recipe's count after it; undefined when there is no such recipe. One statement: the recipe row is
 * locked first, so concurrent changes to one recipe apply one after the other and the count stays true.
 */
export async function setReaction(
  db: Queryable,
  reaction: Reaction,
  recipeId: string,
  userId: string,
  active: boolean,
): Promise<number | undefined> {
  const { table, counter } = stores[reaction];
  const change = active
    ? `INSERT INTO ${table} (recipe_id, user_id) SELECT id, $2 FROM recipe ON CONFLICT DO NOTHING RETURNING 1`
    : `DELETE FROM ${table} WHERE recipe_id = (SELECT id FROM recipe) AND user_id = $2 RETURNING 1`;
  const { rows } = await db.query<{ count: number }>(
    `WITH recipe AS (SELECT id FROM recipes WHERE id = $1 AND deleted_at IS NULL FOR UPDATE),
          changed AS (${change})
     UPDATE recipes SET ${counter} = ${counter} ${active ? '+' : '-'} (SELECT count(*)::int FROM changed)
       FROM recipe WHERE recipes.id = recipe.id
     RETURNING ${counter} AS count`,
    [recipeId, userId],
  );
  return rows[0]?.count;
}
