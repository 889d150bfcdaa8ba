import type { Queryable } from '@recipes/db';

/** Counts a comment on a recipe once, however often its event comes. */
export async function countComment(db: Queryable, commentId: string, recipeId: string): Promise<void> {
  await db.query(
    `WITH counted AS (
       INSERT INTO recipe_comments (comment_id, recipe_id) VALUES ($1, $2)
       ON CONFLICT (comment_id) DO NOTHING RETURNING recipe_id)
     UPDATE recipes SET comment_count = comment_count + 1 FROM counted WHERE recipes.id = counted.recipe_id`,
    [commentId, recipeId],
  );
}

