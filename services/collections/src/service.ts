import { contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { defineService } from '@recipes/runtime';
import { collectionsConfigSchema } from './config.js';
import { handlers } from './events/handlers/index.js';
import { published } from './events/published.js';
import collectionRoutes from './routes/collections/index.js';
import internalCollectionRoutes from './routes/internal/index.js';
import savedItemRoutes from './routes/saved-items/index.js';
import userRoutes from './routes/users/index.js';
import { parts } from './parts.js';

export type { CollectionsParts } from './parts.js';

export const collectionsService = defineService({
  name: 'collections',
  description: 'Saved items and collections',
  configSchema: collectionsConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  sharedMigrations: [userDirectoryMigrations, contentDirectoryMigrations],
  publishes: published,
  parts,
  async routes(app, { savedItems, collections, views, idempotency }, config) {
    await app.register(savedItemRoutes, { prefix: '/api/saved-items', savedItems, views, idempotency });
    await app.register(collectionRoutes, { prefix: '/api/collections', collections, views, idempotency });
    await app.register(userRoutes, {
      prefix: '/api/users',
      savedItems,
      collections,
      views,
      savedItemsNeedToken: config.SAVED_ITEMS_VISIBILITY === 'owner',
    });
  },
  async internalRoutes(internal, { collections, dataExport }) {
    await internal.register(internalCollectionRoutes, { prefix: '/internal/collections', collections, dataExport });
  },
  handlers,
});
