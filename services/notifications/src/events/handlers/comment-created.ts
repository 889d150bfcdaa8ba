import { commentCreated } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import { fromComment, sourceFor } from '../../conversations.js';
import type { Notifications } from '../../notifications.js';

/** A new comment tells the author it replies to and the owner of what it is on, once each (docs/api.md §11.4). */
export const commentCreatedHandler = (notifications: Notifications): EventHandler =>
  on(commentCreated, async (comment, event) => {
    for (const notification of fromComment(comment))
      await notifications.record(sourceFor(event, notification.recipientId), notification);
  });
