import type { Queryable } from '@recipes/db';

/** Counts a comment on a recipe once, however often its event comes, and never once it is deleted. */
export async function countComment(db: Queryable, commentId: string, recipeId: string): Promise<void> {
  await db.query(
    `WITH counted AS (
       INSERT INTO recipe_comments (comment_id, recipe_id) VALUES ($1, $2)
       ON CONFLICT (comment_id) DO NOTHING RETURNING recipe_id)
     UPDATE recipes SET comment_count = comment_count + 1 FROM counted WHERE recipes.id = counted.recipe_id`,
    [commentId, recipeId],
  );
}

/**
 * Takes a deleted comment off its recipe's count, once. Deleted before it was counted (its events came
 * the other way round), it is remembered as deleted, and its creation will not count it.
 */
export async function uncountComment(db: Queryable, commentId: string, recipeId: string): Promise<void> {
  await db.query(
    // xmax is 0 on a row this statement inserted, and set on one it updated: only a counted row uncounts.
    `WITH marked AS (
       INSERT INTO recipe_comments (comment_id, recipe_id, deleted) VALUES ($1, $2, true)
       ON CONFLICT (comment_id) DO UPDATE SET deleted = true WHERE NOT recipe_comments.deleted
       RETURNING recipe_id, xmax = 0 AS inserted
     )
     UPDATE recipes SET comment_count = comment_count - 1
       FROM marked WHERE recipes.id = marked.recipe_id AND NOT marked.inserted`,
    [commentId, recipeId],
  );
}
