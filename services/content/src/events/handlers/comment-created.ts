import { commentCreated } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { type EventHandler, on } from '@recipes/runtime';
import { countComment } from '../../repository/comments.js';

/** A recipe's comment count grows. Collections are not content's, and posts show no count. */
export const commentCreatedHandler = (pool: Pool): EventHandler =>
  on(commentCreated, async (comment, event) => {
    if (comment.targetType !== 'recipe') return;
    await handleOnce(pool, event, (tx) => countComment(tx, comment.id, comment.targetId));
  });
