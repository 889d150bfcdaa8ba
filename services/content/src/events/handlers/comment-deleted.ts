import { commentDeleted } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { CommentCounts } from '../../comment-counts.js';

/** A recipe's comment count shrinks. */
export const commentDeletedHandler = (counts: CommentCounts): EventHandler =>
  on(commentDeleted, (comment) => counts.removed(comment));
