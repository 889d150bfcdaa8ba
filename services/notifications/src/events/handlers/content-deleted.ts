import { collectionDeleted, postDeleted, recipeDeleted } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { Notifications } from '../../notifications.js';

/*
 * A recipe, post or collection deleted takes back every notification about it: the tags in it and the
 * mentions in its comments. The event's `occurredAt` is when it was deleted.
 */

export const recipeDeletedHandler = (notifications: Notifications): EventHandler =>
  on(recipeDeleted, (recipe, event) =>
    notifications.retractAbout(event, { type: 'recipe', id: recipe.id }, event.occurredAt),
  );

export const postDeletedHandler = (notifications: Notifications): EventHandler =>
  on(postDeleted, (post, event) => notifications.retractAbout(event, { type: 'post', id: post.id }, event.occurredAt));

export const collectionDeletedHandler = (notifications: Notifications): EventHandler =>
  on(collectionDeleted, (collection, event) =>
    notifications.retractAbout(event, { type: 'collection', id: collection.id }, event.occurredAt),
  );
