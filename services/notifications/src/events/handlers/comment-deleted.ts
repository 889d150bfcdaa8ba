import { commentDeleted } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { DeletedComments } from '../../conversations.js';

/** A deleted comment (alone, with its thread, or with its target) takes back everything it notified. */
export const commentDeletedHandler = (deleted: DeletedComments): EventHandler =>
  on(commentDeleted, (comment, event) =>
    deleted.retractFrom(
      event,
      { id: comment.id, targetType: comment.targetType, targetId: comment.targetId },
      comment.deletedAt,
    ),
  );
