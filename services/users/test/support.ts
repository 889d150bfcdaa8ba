import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { createPool, migrate, type Pool } from '@recipes/db';
import type { App } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { buildApp } from '../src/app.js';
import { type UsersConfig, usersConfigSchema } from '../src/config.js';

export const usersMigrations = { dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'migrations' };

export interface UsersHarness {
  app: App;
  pool: Pool;
  database: TestDatabase;
  config: UsersConfig;
  keys: { publicKey: string; privateKey: string };
  close(): Promise<void>;
}

/** The users app on a fresh, migrated database of its own. */
export async function usersHarness(env: Record<string, string> = {}): Promise<UsersHarness> {
  const database = await createTestDatabase();
  const logger = createLogger({ service: 'users', level: 'silent' });
  const config = parseConfig(usersConfigSchema, { DATABASE_URL: database.url, ...env });
  await migrate({ databaseUrl: database.url, schema: 'users', sets: [outboxMigrations, usersMigrations], logger });
  const pool = createPool({ connectionString: database.url, schema: 'users', applicationName: 'users-test', logger });
  const keys = generateSigningKeyPair();
  const app = await buildApp({ config, keys, pool, logger });
  await app.ready();
  return {
    app,
    pool,
    database,
    config,
    keys,
    close: async () => {
      await app.close();
      await pool.end();
      await database.drop();
    },
  };
}
