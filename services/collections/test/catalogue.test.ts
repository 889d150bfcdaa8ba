import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { eventCatalogue } from '@recipes/contracts';
import { createPool } from '@recipes/db';
import { contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { createLogger } from '@recipes/logging';
import { catalogueDisagreements } from '@recipes/testing/catalogue';
import { describe, expect, inject, it } from 'vitest';
import { composeCollections } from '../src/app.js';
import { collectionsConfigSchema } from '../src/config.js';

/** Every migration server.ts runs into the collections schema: a trigger there may write events to the outbox. */
const migrationsDirs = [userDirectoryMigrations.dir, contentDirectoryMigrations.dir, fileURLToPath(new URL('../migrations', import.meta.url))];

describe('collections in the event catalogue', () => {
  it('handles exactly the events the catalogue lists it as consuming, and its SQL writes only its own', async () => {
    // Composed by composeCollections, as server.ts does; composing opens no database connection.
    const logger = createLogger({ service: 'collections', level: 'silent' });
    const pool = createPool({ connectionString: inject('databaseUrl'), schema: 'collections', applicationName: 'collections-catalogue-test', logger });
    const publicKey = generateSigningKeyPair().publicKey;
    const { app, handlers = [] } = await composeCollections({ config: parseConfig(collectionsConfigSchema, {}), publicKey, pool, logger });
    try {
      expect(handlers.length).toBeGreaterThan(0);
      expect(catalogueDisagreements(eventCatalogue, { service: 'collections', handlers, migrationsDirs })).toEqual([]);
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
