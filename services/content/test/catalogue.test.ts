import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { eventCatalogue } from '@recipes/contracts';
import { createPool } from '@recipes/db';
import { userDirectoryMigrations } from '@recipes/directory';
import { createLogger } from '@recipes/logging';
import { catalogueDisagreements } from '@recipes/testing/catalogue';
import { describe, expect, inject, it } from 'vitest';
import { composeContent } from '../src/app.js';
import { contentConfigSchema } from '../src/config.js';

/** Every migration server.ts runs into the content schema: a trigger there may write events to the outbox. */
const migrationsDirs = [userDirectoryMigrations.dir, fileURLToPath(new URL('../migrations', import.meta.url))];

describe('content in the event catalogue', () => {
  it('handles exactly the events the catalogue lists it as consuming, and its SQL writes only its own', async () => {
    // Composed by composeContent, as server.ts does; composing opens no database connection.
    const logger = createLogger({ service: 'content', level: 'silent' });
    const pool = createPool({ connectionString: inject('databaseUrl'), schema: 'content', applicationName: 'content-catalogue-test', logger });
    const publicKey = generateSigningKeyPair().publicKey;
    const { app, handlers = [] } = await composeContent({ config: parseConfig(contentConfigSchema, {}), publicKey, pool, logger });
    try {
      expect(handlers.length).toBeGreaterThan(0);
      expect(catalogueDisagreements(eventCatalogue, { service: 'content', handlers, migrationsDirs })).toEqual([]);
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
