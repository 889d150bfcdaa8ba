import rateLimit from '@fastify/rate-limit';
import { authPlugin, callerOf } from '@recipes/auth';
import type { Pool } from '@recipes/db';
import type { CollectionDirectory, ContentDirectory, UserDirectory } from '@recipes/directory';
import { type App, createApp, type ReadinessChecks } from '@recipes/http';
import { Idempotency } from '@recipes/idempotency';
import type { Logger } from '@recipes/logging';
import { comments } from './comments.js';
import type { CommentsConfig } from './config.js';
import collectionRoutes from './routes/collections/index.js';
import postRoutes from './routes/posts/index.js';
import recipeRoutes from './routes/recipes/index.js';
import { targetOwners } from './targets.js';

/** What this service knows of users, recipes and posts, and collections (libs/directory). */
export interface Directories {
  users: UserDirectory;
  content: ContentDirectory;
  collections: CollectionDirectory;
}

export interface CommentsAppDependencies {
  config: CommentsConfig;
  /** PEM of the users service's public key, which verifies tokens. */
  publicKey: string;
  pool: Pool;
  logger: Logger;
  directories: Directories;
  readiness?: ReadinessChecks;
}

export async function buildApp({ config, publicKey, pool, logger, directories, readiness }: CommentsAppDependencies): Promise<App> {
  const app = await createApp({
    title: 'comments',
    description: 'Comments on recipes, collections and posts, and their @mentions',
    logger,
    trustProxy: config.TRUST_PROXY,
    ...(readiness ? { readiness } : {}),
  });

  await app.register(authPlugin, { publicKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  await app.register(rateLimit, { global: false });
  const limitPerCaller = app.rateLimit({
    max: config.COMMENT_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    keyGenerator: (request) => callerOf(request).id,
  });

  const options = {
    comments: comments({
      pool,
      users: directories.users,
      targetOwner: targetOwners(directories.content, directories.collections),
    }),
    limitPerCaller,
    idempotency: new Idempotency(pool),
  };
  await app.register(recipeRoutes, { prefix: '/api/recipes', ...options });
  await app.register(collectionRoutes, { prefix: '/api/collections', ...options });
  await app.register(postRoutes, { prefix: '/api/posts', ...options });
  return app;
}
