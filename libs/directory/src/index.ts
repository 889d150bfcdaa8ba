import { fileURLToPath } from 'node:url';
import type { MigrationSet } from '@recipes/db';

export { CollectionDirectory, type CollectionDirectorySettings } from './collection-directory.js';
export { ContentDirectory, type ContentDirectorySettings, type ContentItem } from './content-directory.js';
export * from './handlers.js';
export { InternalClient } from './internal-client.js';
export { RelationDirectory } from './relation-directory.js';
export { directoryTables } from './tables.js';
export { UserDirectory, type UserDirectorySettings } from './user-directory.js';

/** The tables of each directory, migrated into the using service's schema (`sharedMigrations` in @recipes/runtime). */
export const userDirectoryMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../users-migrations', import.meta.url)),
  table: 'user_directory_migrations',
};

export const contentDirectoryMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../content-migrations', import.meta.url)),
  table: 'content_directory_migrations',
};

export const collectionDirectoryMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../collection-migrations', import.meta.url)),
  table: 'collection_directory_migrations',
};

export const relationDirectoryMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../relation-migrations', import.meta.url)),
  table: 'relation_directory_migrations',
};
