import { userDirectoryMigrations } from '@recipes/directory';
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
  sharedMigrations: [userDirectoryMigrations],
  publishes: published,
  parts,
  async routes(app, { recipes, posts, idempotency }) {
    await app.register(recipeRoutes, { prefix: '/api/recipes', recipes, idempotency });
    await app.register(postRoutes, { prefix: '/api/posts', posts, idempotency });
    await app.register(userRoutes, { prefix: '/api/users', recipes });
  },
  async internalRoutes(internal, { recipes, posts }) {
    await internal.register(internalRoutes, { prefix: '/internal/content', recipes, posts });
  },
  handlers,
});
