import {
  collectionCreated,
  collectionDeleted,
  postCreated,
  postDeleted,
  recipeCreated,
  recipeDeleted,
  recipeUpdated,
  userBlocked,
  userCreated,
  userMuted,
  userUnblocked,
  userUnmuted,
  userUpdated,
} from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { CollectionDirectory } from './collection-directory.js';
import type { ContentDirectory } from './content-directory.js';
import type { RelationDirectory } from './relation-directory.js';
import type { UserDirectory } from './user-directory.js';

/*
 * One handler per event type that keeps a directory current. A service lists the ones it consumes under
 * its own name in `src/events/handlers/`, so that what it consumes is visible in its tree.
 */

export const userCreatedHandler = (users: UserDirectory): EventHandler =>
  on(userCreated, (user, event) => users.remember(user, event));
export const userUpdatedHandler = (users: UserDirectory): EventHandler =>
  on(userUpdated, (user, event) => users.remember(user, event));

export const recipeCreatedHandler = (content: ContentDirectory): EventHandler =>
  on(recipeCreated, (recipe, event) => content.remember('recipe', recipe, event));
export const recipeUpdatedHandler = (content: ContentDirectory): EventHandler =>
  on(recipeUpdated, (recipe, event) => content.remember('recipe', recipe, event));
export const recipeDeletedHandler = (content: ContentDirectory): EventHandler =>
  on(recipeDeleted, (recipe, event) => content.remember('recipe', recipe, event));
export const postCreatedHandler = (content: ContentDirectory): EventHandler =>
  on(postCreated, (post, event) => content.remember('post', post, event));
export const postDeletedHandler = (content: ContentDirectory): EventHandler =>
  on(postDeleted, (post, event) => content.remember('post', post, event));

export const collectionCreatedHandler = (collections: CollectionDirectory): EventHandler =>
  on(collectionCreated, (collection, event) => collections.remember(collection, event));
export const collectionDeletedHandler = (collections: CollectionDirectory): EventHandler =>
  on(collectionDeleted, (collection, event) => collections.remember(collection, event));

export const userMutedHandler = (relations: RelationDirectory): EventHandler =>
  on(userMuted, (relation, event) => relations.remember(relation, event));
export const userUnmutedHandler = (relations: RelationDirectory): EventHandler =>
  on(userUnmuted, (relation, event) => relations.remember(relation, event));
export const userBlockedHandler = (relations: RelationDirectory): EventHandler =>
  on(userBlocked, (relation, event) => relations.remember(relation, event));
export const userUnblockedHandler = (relations: RelationDirectory): EventHandler =>
  on(userUnblocked, (relation, event) => relations.remember(relation, event));

/** Every handler of one directory, for its own tests and pacts. */
export const userDirectoryHandlers = (users: UserDirectory) => [userCreatedHandler(users), userUpdatedHandler(users)];
export const contentDirectoryHandlers = (content: ContentDirectory) => [
  recipeCreatedHandler(content),
  recipeUpdatedHandler(content),
  recipeDeletedHandler(content),
  postCreatedHandler(content),
  postDeletedHandler(content),
];
export const collectionDirectoryHandlers = (collections: CollectionDirectory) => [
  collectionCreatedHandler(collections),
  collectionDeletedHandler(collections),
];
