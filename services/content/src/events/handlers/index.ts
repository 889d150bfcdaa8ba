import type { EventHandler } from '@recipes/messaging';
import { checkingErasedItself, droppingErased } from '@recipes/runtime';
import type { ContentParts } from '../../parts.js';
import { commentCreatedHandler } from './comment-created.js';
import { commentDeletedHandler } from './comment-deleted.js';
import { userBlockedHandler, userUnblockedHandler } from './user-blocked.js';
import { userCreatedHandler } from './user-created.js';
import { userDeletedHandler } from './user-deleted.js';
import { userUpdatedHandler } from './user-updated.js';

/** Every event this service consumes: the users keep its user directories current, the comments its recipes' counts. */
export function handlers({ users, relations, commentCounts, erasure }: ContentParts): EventHandler[] {
  return droppingErased(erasure.pool, [
    userCreatedHandler(users),
    userUpdatedHandler(users),
    userBlockedHandler(relations),
    userUnblockedHandler(relations),
    // Counted by comment id, nothing of the author: an erased author's comment, deleted by the erasure, is
    // taken off (or never counted) by its comment.deleted, in whichever order the two come.
    checkingErasedItself(commentCreatedHandler(commentCounts)),
    commentDeletedHandler(commentCounts),
    userDeletedHandler(erasure),
  ]);
}
