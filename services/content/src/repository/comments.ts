import type { Queryable } from '@recipes/db';

/** A comment on a recipe, to be counted. */
export interface CommentOnRecipe {
  commentId: string;
  recipeId: string;
}

/**
 * Counts comments on recipes, each once however often its event comes, and never once it is deleted: one statement
 * for a batch. The recipes are locked in the order of their ids, so that batches written at once by two instances
 * cannot deadlock.
 */
export async function countComments(db: Queryable, comments: readonly CommentOnRecipe[]): Promise<void> {
  await db.query(
    `WITH counted AS (
       INSERT INTO recipe_comments (comment_id, recipe_id)
       SELECT * FROM unnest($1::uuid[], $2::uuid[])
       ON CONFLICT (comment_id) DO NOTHING RETURNING recipe_id
     ), added AS (
       SELECT recipe_id, count(*)::int AS comments FROM counted GROUP BY recipe_id
     ), locked AS (
       SELECT id FROM recipes WHERE id IN (SELECT recipe_id FROM added) ORDER BY id FOR UPDATE
     )
     UPDATE recipes SET comment_count = comment_count + added.comments
       FROM added JOIN locked ON locked.id = added.recipe_id
      WHERE recipes.id = added.recipe_id`,
    [comments.map(({ commentId }) => commentId), comments.map(({ recipeId }) => recipeId)],
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
