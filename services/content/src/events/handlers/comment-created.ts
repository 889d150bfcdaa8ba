import { commentCreated } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { CommentCounts } from '../../comment-counts.js';

/** A recipe's comment count grows. Collections are not content's, and posts show no count. */
export const commentCreatedHandler = (counts: CommentCounts): EventHandler =>
  on(commentCreated, (comment) => counts.added(comment));
