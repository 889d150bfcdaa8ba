import { fileURLToPath } from 'node:url';
import type { MigrationSet } from '@recipes/db';

export { UserDirectory, type UserDirectorySettings } from './directory.js';

/** The directory's table, migrated into the using service's schema (see `sharedMigrations` in @recipes/runtime). */
export const directoryMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  table: 'directory_migrations',
};
