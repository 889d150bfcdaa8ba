import { budgetMigrations } from '@recipes/db';
import { relationDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { defineService } from '@recipes/runtime';
import { contentConfigSchema } from './config.js';
import { handlers } from './events/handlers/index.js';
import { published } from './events/published.js';
import internalRoutes from './routes/internal/index.js';
import postRoutes from './routes/posts/index.js';
import recipeRoutes from './routes/recipes/index.js';
import userRoutes from './routes/users/index.js';
import { parts } from './parts.js';

export type { ContentParts } from './parts.js';

export const contentService = defineService({
  name: 'content',
  description: 'Recipes, posts, favorites, reposts and tags',
  configSchema: contentConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  sharedMigrations: [userDirectoryMigrations, relationDirectoryMigrations, budgetMigrations],
  publishes: published,
  parts,
  async routes(app, { recipes, posts, idempotency }, config) {
    // Counted in this service's schema (libs/db budgets) by the users each request would tag; recipes
    // and posts spend from the same one.
    const notificationBudget = {
      name: 'notifications',
      max: config.NOTIFICATION_BUDGET_PER_HOUR,
      windowMs: 3_600_000,
      detail: 'Too many users notified this hour, try again later',
    };
    await app.register(recipeRoutes, { prefix: '/api/recipes', recipes, notificationBudget, idempotency });
    await app.register(postRoutes, { prefix: '/api/posts', posts, notificationBudget, idempotency });
    await app.register(userRoutes, { prefix: '/api/users', recipes });
  },
  async internalRoutes(internal, { recipes, posts, dataExport }) {
    await internal.register(internalRoutes, { prefix: '/internal/content', recipes, posts, dataExport });
  },
  handlers,
});
