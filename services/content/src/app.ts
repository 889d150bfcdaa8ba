import { authPlugin } from '@recipes/auth';
import type { Pool } from '@recipes/db';
import { UserDirectory } from '@recipes/directory';
import { createApp, internalApp, type ReadinessChecks } from '@recipes/http';
import { Idempotency } from '@recipes/idempotency';
import type { Logger } from '@recipes/logging';
import type { ServiceParts } from '@recipes/runtime';
import type { ContentConfig } from './config.js';
import { commentCreatedHandler } from './events/handlers/comment-created.js';
import { commentDeletedHandler } from './events/handlers/comment-deleted.js';
import { posts } from './posts.js';
import { recipes } from './recipes.js';
import internalRoutes from './routes/internal/index.js';
import postRoutes from './routes/posts/index.js';
import recipeRoutes from './routes/recipes/index.js';
import userRoutes from './routes/users/index.js';

export interface ContentDependencies {
  config: ContentConfig;
  /** PEM of the users service's public key: tokens are verified, never issued, here. */
  publicKey: string;
  pool: Pool;
  logger: Logger;
  readiness?: ReadinessChecks;
}

/** The HTTP app and the event handlers, sharing one directory of users. */
export async function composeContent({ config, publicKey, pool, logger, readiness }: ContentDependencies): Promise<Required<ServiceParts>> {
  const app = await createApp({
    title: 'content',
    description: 'Recipes, posts, favorites, reposts and tags',
    logger,
    trustProxy: config.TRUST_PROXY,
    ...(readiness ? { readiness } : {}),
  });

  await app.register(authPlugin, { publicKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });

  const directory = new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL });
  const recipeBook = recipes(pool, directory);
  const postBoard = posts(pool, directory);
  const idempotency = new Idempotency(pool);
  await app.register(recipeRoutes, { prefix: '/api/recipes', recipes: recipeBook, idempotency });
  await app.register(postRoutes, { prefix: '/api/posts', posts: postBoard, idempotency });
  await app.register(userRoutes, { prefix: '/api/users', recipes: recipeBook });
  const internal = await internalApp(app, { title: 'content', logger, ...(readiness ? { readiness } : {}) });
  await internal.register(internalRoutes, { prefix: '/internal/content', recipes: recipeBook, posts: postBoard });

  return { app, handlers: [...directory.handlers(), commentCreatedHandler(pool), commentDeletedHandler(pool)] };
}
