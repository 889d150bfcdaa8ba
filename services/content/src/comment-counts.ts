import type { CommentTargetType, EventEnvelope } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { countComment, uncountComment } from './repository/comments.js';

/** What a comment event says of the comment: enough to find the recipe it counts on. */
export interface CountedComment {
  id: string;
  targetType: CommentTargetType;
  targetId: string;
}

/**
 * Recipes' comment counts, kept from the comments service's events, each applied once. Only recipes are
 * counted: collections are not content's, and posts show no count.
 */
export function commentCounts(pool: Pool) {
  return {
    /** A recipe's comment count grows. */
    async added(comment: CountedComment, event: Pick<EventEnvelope, 'id' | 'type'>): Promise<void> {
      if (comment.targetType !== 'recipe') return;
      await handleOnce(pool, event, (tx) => countComment(tx, comment.id, comment.targetId));
    },

    /** A recipe's comment count shrinks. */
    async removed(comment: CountedComment, event: Pick<EventEnvelope, 'id' | 'type'>): Promise<void> {
      if (comment.targetType !== 'recipe') return;
      await handleOnce(pool, event, (tx) => uncountComment(tx, comment.id, comment.targetId));
    },
  };
}

export type CommentCounts = ReturnType<typeof commentCounts>;
