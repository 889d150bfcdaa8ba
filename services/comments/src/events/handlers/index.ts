import type { EventHandler } from '@recipes/messaging';
import { droppingErased } from '@recipes/runtime';
import type { CommentsParts } from '../../parts.js';
import { collectionCreatedHandler } from './collection-created.js';
import { collectionDeletedHandler } from './collection-deleted.js';
import { postCreatedHandler } from './post-created.js';
import { postDeletedHandler } from './post-deleted.js';
import { recipeCreatedHandler } from './recipe-created.js';
import { recipeDeletedHandler } from './recipe-deleted.js';
import { recipeUpdatedHandler } from './recipe-updated.js';
import { userBlockedHandler, userUnblockedHandler } from './user-blocked.js';
import { userCreatedHandler } from './user-created.js';
import { userDeletedHandler } from './user-deleted.js';
import { userUpdatedHandler } from './user-updated.js';

/**
 * Every event this service consumes: all of them keep its directories current; a deletion also removes the target's
 * comments.
 */
export function handlers({
  directories: { users, content, collections, relations },
  deletedTargets,
  erasure,
}: CommentsParts): EventHandler[] {
  return droppingErased(erasure.pool, [
    userCreatedHandler(users),
    userUpdatedHandler(users),
    userBlockedHandler(relations),
    userUnblockedHandler(relations),
    recipeCreatedHandler(content),
    recipeUpdatedHandler(content),
    recipeDeletedHandler(content, deletedTargets),
    postCreatedHandler(content),
    postDeletedHandler(content, deletedTargets),
    collectionCreatedHandler(collections),
    collectionDeletedHandler(collections, deletedTargets),
    userDeletedHandler(erasure),
  ]);
}
