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

/**
 * Takes back up to `limit` of a deleted account's favorites or reposts, on any recipe, deleted ones
 * included, each off its recipe's count in the same statement, so that a count always equals its rows
 * (docs/api.md §11.2). Returns how many went.
 */
export async function dropReactionsOf(
  db: Queryable,
  reaction: Reaction,
  userId: string,
  limit: number,
): Promise<number> {
  const { table, counter } = stores[reaction];
  const { rows } = await db.query<{ dropped: number }>(
    `WITH gone AS (
       DELETE FROM ${table}
        WHERE user_id = $1 AND recipe_id IN (SELECT recipe_id FROM ${table} WHERE user_id = $1 ORDER BY recipe_id LIMIT $2)
       RETURNING recipe_id
     ), counted AS (
       UPDATE recipes SET ${counter} = ${counter} - 1 FROM gone WHERE recipes.id = gone.recipe_id RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM gone) AS dropped, (SELECT count(*) FROM counted) AS recipes`,
    [userId, limit],
  );
  return rows[0]!.dropped;
}
