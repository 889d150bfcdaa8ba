import { callerOf } from '@recipes/auth';
import { budgetMigrations } from '@recipes/db';
import {
  collectionDirectoryMigrations,
  contentDirectoryMigrations,
  relationDirectoryMigrations,
  userDirectoryMigrations,
} from '@recipes/directory';
import { rateLimits, sharedStoreFor } from '@recipes/http';
import { defineService } from '@recipes/runtime';
import { commentsConfigSchema } from './config.js';
import { LIMITS_PER_CALLER } from './erasure.js';
import { handlers } from './events/handlers/index.js';
import { published } from './events/published.js';
import collectionRoutes from './routes/collections/index.js';
import commentByIdRoutes from './routes/comments/index.js';
import internalRoutes from './routes/internal/index.js';
import postRoutes from './routes/posts/index.js';
import recipeRoutes from './routes/recipes/index.js';
import { parts } from './parts.js';

export type { CommentsParts } from './parts.js';

export const commentsService = defineService({
  name: 'comments',
  description: 'Comments on recipes, collections and posts, and their @mentions',
  configSchema: commentsConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  sharedMigrations: [
    userDirectoryMigrations,
    contentDirectoryMigrations,
    collectionDirectoryMigrations,
    relationDirectoryMigrations,
    budgetMigrations,
  ],
  publishes: published,
  parts,
  async routes(app, { comments, idempotency, shared }, config) {
    // One limit per caller shared by every kind of target and by posting and editing, so it is made once
    // and handed to each. Its counts go with a deleted user (src/erasure.ts).
    const limitPerCaller = (
      await rateLimits(
        app,
        await sharedStoreFor(app, { url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX }, shared),
      )
    )({
      name: LIMITS_PER_CALLER[0],
      max: config.COMMENT_LIMIT_PER_MINUTE,
      windowMs: 60_000,
      keyGenerator: (request) => callerOf(request).id,
    });
    // Counted in this service's schema (libs/db budgets) by the users each request would newly mention.
    const notificationBudget = {
      name: 'notifications',
      max: config.NOTIFICATION_BUDGET_PER_HOUR,
      windowMs: 3_600_000,
      detail: 'Too many users notified this hour, try again later',
    };
    const options = { comments, limitPerCaller, notificationBudget, idempotency };
    await app.register(recipeRoutes, { prefix: '/api/recipes', ...options });
    await app.register(collectionRoutes, { prefix: '/api/collections', ...options });
    await app.register(postRoutes, { prefix: '/api/posts', ...options });
    await app.register(commentByIdRoutes, { prefix: '/api/comments', comments });
  },
  async internalRoutes(internal, { dataExport }) {
    await internal.register(internalRoutes, { prefix: '/internal/comments', dataExport });
  },
  handlers,
});
