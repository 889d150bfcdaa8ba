import { createPool, migrate, type Pool } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import { createTestDatabase } from '@recipes/testing';
import { outboxMigrations } from '../src/index.js';

export interface OutboxDatabase {
  /** For connections of a test's own beside the pool. */
  url: string;
  pool: Pool;
  /** Ends the pool and drops the database. */
  drop(): Promise<void>;
}

/** A database of its own with the outbox tables in `schema`, and a pool on it. */
export async function outboxDatabase({
  schema,
  applicationName,
  logger,
}: {
  schema: string;
  applicationName: string;
  logger: Logger;
}): Promise<OutboxDatabase> {
  const database = await createTestDatabase();
  try {
    await migrate({ databaseUrl: database.url, schema, sets: [outboxMigrations], logger });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const pool = createPool({ connectionString: database.url, schema, applicationName, logger });
  return {
    url: database.url,
    pool,
    async drop() {
      await pool.end();
      await database.drop();
    },
  };
}
