import { authPlugin } from '@recipes/auth';
import type { Pool } from '@recipes/db';
import { ContentDirectory, UserDirectory } from '@recipes/directory';
import { type App, createApp, internalApp, type ReadinessChecks } from '@recipes/http';
import { Idempotency } from '@recipes/idempotency';
import type { Logger } from '@recipes/logging';
import type { EventHandler } from '@recipes/runtime';
import { collections } from './collections.js';
import type { CollectionsConfig } from './config.js';
import collectionRoutes from './routes/collections/index.js';
import internalRoutes from './routes/internal/index.js';
import savedItemRoutes from './routes/saved-items/index.js';
import userRoutes from './routes/users/index.js';
import { savedItems } from './saved-items.js';
import { views } from './views.js';

export interface CollectionsDependencies {
  config: CollectionsConfig;
  /** PEM of the users service's public key, to verify tokens. */
  publicKey: string;
  pool: Pool;
  logger: Logger;
  readiness?: ReadinessChecks;
}

/**
 * The HTTP app and the event handlers, sharing the read models of users and content: the handlers keep
 * them current from events, the routes read them (and fill them from the owning services on a miss).
 */
export async function composeCollections({ config, publicKey, pool, logger, readiness }: CollectionsDependencies): Promise<{
  app: App;
  handlers: EventHandler[];
}> {
  const users = new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL });
  const content = new ContentDirectory({ pool, contentUrl: config.CONTENT_INTERNAL_URL });

  const app = await createApp({
    title: 'collections',
    description: 'Saved items and collections',
    logger,
    trustProxy: config.TRUST_PROXY,
    ...(readiness ? { readiness } : {}),
  });
  await app.register(authPlugin, { publicKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });

  const saved = savedItems({ pool, users, content, visibility: config.SAVED_ITEMS_VISIBILITY });
  const owned = collections({ pool, users });
  const shown = views(users);
  const idempotency = new Idempotency(pool);
  await app.register(savedItemRoutes, { prefix: '/api/saved-items', savedItems: saved, views: shown, idempotency });
  await app.register(collectionRoutes, { prefix: '/api/collections', collections: owned, views: shown, idempotency });
  await app.register(userRoutes, {
    prefix: '/api/users',
    savedItems: saved,
    collections: owned,
    views: shown,
    savedItemsNeedToken: config.SAVED_ITEMS_VISIBILITY === 'owner',
  });
  const internal = await internalApp(app, { title: 'collections', logger, ...(readiness ? { readiness } : {}) });
  await internal.register(internalRoutes, { prefix: '/internal/collections', collections: owned });

  return { app, handlers: [...users.handlers(), ...content.handlers()] };
}
