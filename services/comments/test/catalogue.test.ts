import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { eventCatalogue } from '@recipes/contracts';
import { createPool } from '@recipes/db';
import { collectionDirectoryMigrations, contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { createLogger } from '@recipes/logging';
import { catalogueDisagreements } from '@recipes/testing/catalogue';
import { describe, expect, inject, it } from 'vitest';
import { composeService } from '../src/service.js';
import { commentsConfigSchema } from '../src/config.js';

/** Every migration server.ts runs into the comments schema: a trigger there may write events to the outbox. */
const migrationsDirs = [userDirectoryMigrations.dir, contentDirectoryMigrations.dir, collectionDirectoryMigrations.dir, fileURLToPath(new URL('../migrations', import.meta.url))];

describe('comments in the event catalogue', () => {
  it('handles exactly the events the catalogue lists it as consuming, and its SQL writes only its own', async () => {
    // Composed by composeService, as server.ts does; composing opens no database connection.
    const logger = createLogger({ service: 'comments', level: 'silent' });
    const pool = createPool({ connectionString: inject('databaseUrl'), schema: 'comments', applicationName: 'comments-catalogue-test', logger });
    const publicKey = generateSigningKeyPair().publicKey;
    const { app, handlers = [] } = await composeService(parseConfig(commentsConfigSchema, {}), publicKey)({ pool, logger, readiness: {} });
    try {
      expect(handlers.length).toBeGreaterThan(0);
      expect(catalogueDisagreements(eventCatalogue, { service: 'comments', handlers, migrationsDirs })).toEqual([]);
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
