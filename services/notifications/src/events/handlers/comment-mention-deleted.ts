import { commentMentionDeleted } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import { fromMention, type Notifications } from '../../notifications.js';

/** A mention taken back retracts what it told the mentioned user. */
export const commentMentionDeletedHandler = (notifications: Notifications): EventHandler =>
  on(commentMentionDeleted, (mention, event) => notifications.retract(event, fromMention(mention), mention.deletedAt));
