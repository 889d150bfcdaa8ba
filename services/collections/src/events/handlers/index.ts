import type { EventHandler } from '@recipes/messaging';
import { droppingErased } from '@recipes/runtime';
import type { CollectionsParts } from '../../parts.js';
import { postCreatedHandler } from './post-created.js';
import { postDeletedHandler } from './post-deleted.js';
import { recipeCreatedHandler } from './recipe-created.js';
import { recipeDeletedHandler } from './recipe-deleted.js';
import { recipeUpdatedHandler } from './recipe-updated.js';
import { userCreatedHandler } from './user-created.js';
import { userDeletedHandler } from './user-deleted.js';
import { userUpdatedHandler } from './user-updated.js';

/** Every event this service consumes: all of them keep its directories of users and content current. */
export function handlers({ directories: { users, content }, erasure }: CollectionsParts): EventHandler[] {
  return droppingErased(erasure.pool, [
    userCreatedHandler(users),
    userUpdatedHandler(users),
    recipeCreatedHandler(content),
    recipeUpdatedHandler(content),
    recipeDeletedHandler(content),
    postCreatedHandler(content),
    postDeletedHandler(content),
    userDeletedHandler(erasure),
  ]);
}
