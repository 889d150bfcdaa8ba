import { callerOf } from '@recipes/auth';
import { collectionDirectoryMigrations, contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { rateLimits } from '@recipes/http';
import { defineService } from '@recipes/runtime';
import { commentsConfigSchema } from './config.js';
import { handlers } from './events/handlers/index.js';
import { published } from './events/published.js';
import collectionRoutes from './routes/collections/index.js';
import postRoutes from './routes/posts/index.js';
import recipeRoutes from './routes/recipes/index.js';
import { parts } from './parts.js';

export type { CommentsParts } from './parts.js';

export const commentsService = defineService({
  name: 'comments',
  description: 'Comments on recipes, collections and posts, and their @mentions',
  configSchema: commentsConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  sharedMigrations: [userDirectoryMigrations, contentDirectoryMigrations, collectionDirectoryMigrations],
  publishes: published,
  parts,
  async routes(app, { comments, idempotency }, config) {
    // One limit per caller shared by every kind of target, so it is made once and handed to each.
    const limitPerCaller = (await rateLimits(app))({
      name: 'comments',
      max: config.COMMENT_LIMIT_PER_MINUTE,
      windowMs: 60_000,
      keyGenerator: (request) => callerOf(request).id,
    });
    const options = { comments, limitPerCaller, idempotency };
    await app.register(recipeRoutes, { prefix: '/api/recipes', ...options });
    await app.register(collectionRoutes, { prefix: '/api/collections', ...options });
    await app.register(postRoutes, { prefix: '/api/posts', ...options });
  },
  handlers,
});
