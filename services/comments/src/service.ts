import type { Pool } from '@recipes/db';
import { CollectionDirectory, ContentDirectory, UserDirectory } from '@recipes/directory';
import type { EventHandler, ServiceContext, ServiceParts } from '@recipes/runtime';
import { buildApp, type Directories } from './app.js';
import type { CommentsConfig } from './config.js';

/** This service's read models of users, content and collections, each asking its owner on a miss. */
export function createDirectories(pool: Pool, config: CommentsConfig): Directories {
  return {
    users: new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL }),
    content: new ContentDirectory({ pool, contentUrl: config.CONTENT_INTERNAL_URL }),
    collections: new CollectionDirectory({ pool, collectionsUrl: config.COLLECTIONS_INTERNAL_URL }),
  };
}

/** The events that keep the directories current. */
export function directoryHandlers({ users, content, collections }: Directories): EventHandler[] {
  return [...users.handlers(), ...content.handlers(), ...collections.handlers()];
}

/** The service as runtime composes it: the app, and the handlers of the events it consumes. */
export function composeService(config: CommentsConfig, publicKey: string) {
  return async (context: ServiceContext): Promise<ServiceParts> => {
    const directories = createDirectories(context.pool, config);
    return {
      app: await buildApp({ ...context, config, publicKey, directories }),
      handlers: directoryHandlers(directories),
    };
  };
}
