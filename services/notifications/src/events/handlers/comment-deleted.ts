import { commentDeleted } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { Notifications } from '../../notifications.js';

/** A deleted comment (alone, with its thread, or with its target) takes back everything it notified. */
export const commentDeletedHandler = (notifications: Notifications): EventHandler =>
  on(commentDeleted, (comment, event) => notifications.retractFromComment(event, { id: comment.id, targetType: comment.targetType, targetId: comment.targetId }, comment.deletedAt));
