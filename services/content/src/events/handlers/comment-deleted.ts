import { commentDeleted } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { type EventHandler, on } from '@recipes/runtime';
import { uncountComment } from '../../repository/comments.js';

/** A recipe's comment count shrinks. */
export const commentDeletedHandler = (pool: Pool): EventHandler =>
  on(commentDeleted, async (comment, event) => {
    if (comment.targetType !== 'recipe') return;
    await handleOnce(pool, event, (tx) => uncountComment(tx, comment.id, comment.targetId));
  });
