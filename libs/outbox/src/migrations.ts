import { fileURLToPath } from 'node:url';
import type { MigrationSet } from '@recipes/db';

/**
 * The outbox and inbox tables. Each service runs them into its own schema before its own migrations.
 * The folder sits next to src/ and dist/, so the same relative path works from both.
 */
export const outboxMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'outbox_migrations',
};
