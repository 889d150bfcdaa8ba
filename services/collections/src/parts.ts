import { ContentDirectory, UserDirectory } from '@recipes/directory';
import { Idempotency } from '@recipes/idempotency';
import { type PartsContext } from '@recipes/runtime';
import { collections } from './collections.js';
import { type CollectionsConfig } from './config.js';
import { dataExport } from './data-export.js';
import { erasureSteps } from './erasure.js';
import { savedItems } from './saved-items.js';
import { views } from './views.js';

/**
 * Saved items and collections, and what they know of users and content (libs/directory): the handlers
 * keep the directories current from events, the routes read them (and fill them from the owners on a miss).
 */
export function parts({ config, pool }: PartsContext<CollectionsConfig>) {
  const directories = {
    users: new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL }),
    content: new ContentDirectory({ pool, contentUrl: config.CONTENT_INTERNAL_URL }),
  };
  const { users, content } = directories;
  const ownSavedItems = savedItems({ pool, users, content, visibility: config.SAVED_ITEMS_VISIBILITY });
  const ownCollections = collections({ pool, users });
  const ownViews = views(users);
  return {
    directories,
    savedItems: ownSavedItems,
    collections: ownCollections,
    erasure: { pool, service: 'collections' as const, steps: erasureSteps(pool, ownCollections, ownSavedItems) },
    views: ownViews,
    dataExport: dataExport(pool, ownViews),
    idempotency: new Idempotency(pool),
  };
}

export type CollectionsParts = ReturnType<typeof parts>;
