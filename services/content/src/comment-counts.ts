import type { CommentTargetType } from '@recipes/contracts';
import { type Pool, writeInBatches } from '@recipes/db';
import { countComments, uncountComment } from './repository/comments.js';

/** What a comment event says of the comment: enough to find the recipe it counts on. */
export interface CountedComment {
  id: string;
  targetType: CommentTargetType;
  targetId: string;
}

/**
 * Recipes' comment counts, kept from the comments service's events, each applied once. Only recipes are
 * counted: collections are not content's, and posts show no count. Each change is one statement keyed by
 * the comment's id (`recipe_comments`), so a redelivered or repeated event changes nothing without an
 * inbox row and a transaction of its own. The comments that come while others are being counted are counted
 * together (`writeInBatches`): under load, one statement and one commit count many, where the recipe's row took
 * each in turn.
 */
export function commentCounts(pool: Pool) {
  const count = writeInBatches((comments: readonly CountedComment[]) =>
    countComments(
      pool,
      comments.map(({ id, targetId }) => ({ commentId: id, recipeId: targetId })),
    ),
  );
  return {
    /** A recipe's comment count grows. */
    async added(comment: CountedComment): Promise<void> {
      if (comment.targetType !== 'recipe') return;
      await count(comment);
    },

    /** A recipe's comment count shrinks. */
    async removed(comment: CountedComment): Promise<void> {
      if (comment.targetType !== 'recipe') return;
      await uncountComment(pool, comment.id, comment.targetId);
    },
  };
}

export type CommentCounts = ReturnType<typeof commentCounts>;
