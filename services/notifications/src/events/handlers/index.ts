import type { EventHandler } from '@recipes/messaging';
import { checkingErasedItself, droppingErased } from '@recipes/runtime';
import type { NotificationsParts } from '../../parts.js';
import { commentCreatedHandler } from './comment-created.js';
import { commentDeletedHandler } from './comment-deleted.js';
import { commentMentionCreatedHandler } from './comment-mention-created.js';
import { commentMentionDeletedHandler } from './comment-mention-deleted.js';
import { collectionDeletedHandler, postDeletedHandler, recipeDeletedHandler } from './content-deleted.js';
import { userTaggedHandler } from './content-user-tagged.js';
import { userBlockedHandler, userUnblockedHandler } from './user-blocked.js';
import { userCreatedHandler } from './user-created.js';
import { userDeletedHandler } from './user-deleted.js';
import { userMutedHandler, userUnmutedHandler } from './user-muted.js';
import { userUpdatedHandler } from './user-updated.js';

/**
 * Every event this service consumes: mentions, tags, replies and comments on a user's content make and
 * retract notifications, deleted content retracts those about it, user events keep its directories current,
 * and blocks also retract what the blocked user caused. What a late event says of an erased user is dropped
 * (`droppingErased`); those that store notifications drop it as they store (the rule `erasedUser`).
 */
export function handlers({
  directories: { users, relations },
  notifications,
  blocks,
  deletedComments,
  erasure,
}: NotificationsParts): EventHandler[] {
  return droppingErased(erasure.pool, [
    userCreatedHandler(users),
    userUpdatedHandler(users),
    userMutedHandler(relations),
    userUnmutedHandler(relations),
    userBlockedHandler(blocks),
    userUnblockedHandler(blocks),
    checkingErasedItself(commentMentionCreatedHandler(notifications)),
    commentMentionDeletedHandler(notifications),
    checkingErasedItself(commentCreatedHandler(notifications)),
    commentDeletedHandler(deletedComments),
    checkingErasedItself(userTaggedHandler(notifications)),
    recipeDeletedHandler(notifications),
    postDeletedHandler(notifications),
    collectionDeletedHandler(notifications),
    userDeletedHandler(erasure),
  ]);
}
