import type { EventHandler } from '@recipes/messaging';
import type { NotificationsParts } from '../../parts.js';
import { commentMentionCreatedHandler } from './comment-mention-created.js';
import { commentMentionDeletedHandler } from './comment-mention-deleted.js';
import { collectionDeletedHandler, postDeletedHandler, recipeDeletedHandler } from './content-deleted.js';
import { userTaggedHandler } from './content-user-tagged.js';
import { userCreatedHandler } from './user-created.js';
import { userUpdatedHandler } from './user-updated.js';

/**
 * Every event this service consumes: mentions and tags make and retract notifications, deleted content
 * retracts those about it, user events keep its directory current.
 */
export function handlers({ directories: { users }, notifications }: NotificationsParts): EventHandler[] {
  return [
    userCreatedHandler(users),
    userUpdatedHandler(users),
    commentMentionCreatedHandler(notifications),
    commentMentionDeletedHandler(notifications),
    userTaggedHandler(notifications),
    recipeDeletedHandler(notifications),
    postDeletedHandler(notifications),
    collectionDeletedHandler(notifications),
  ];
}
