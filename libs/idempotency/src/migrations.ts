import { fileURLToPath } from 'node:url';
import type { MigrationSet } from '@recipes/db';

/**
 * The `idempotency_keys` table. Every service runs it into its own schema, next to the outbox tables.
 * The folder sits next to src/ and dist/, so the same relative path works from both.
 */
export const idempotencyMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'idempotency_migrations',
};
