import { commentMentionCreated } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import { fromMention, type Notifications } from '../../notifications.js';

/** A stored mention tells the mentioned user, once. */
export const commentMentionCreatedHandler = (notifications: Notifications): EventHandler =>
  on(commentMentionCreated, (mention, event) => notifications.record(event, fromMention(mention)));
