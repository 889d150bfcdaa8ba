import { fileURLToPath } from 'node:url';
import { loadConfig, readSettingFile } from '@recipes/config';
import { contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { runBackendService } from '@recipes/runtime';
import { composeCollections } from './app.js';
import { collectionsConfigSchema } from './config.js';

const config = loadConfig(collectionsConfigSchema);
const publicKey = readSettingFile('JWT_PUBLIC_KEY_FILE', config.JWT_PUBLIC_KEY_FILE);

await runBackendService({
  name: 'collections',
  config,
  migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
  sharedMigrations: [userDirectoryMigrations, contentDirectoryMigrations],
  compose: (context) => composeCollections({ ...context, config, publicKey }),
});
