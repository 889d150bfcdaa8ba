import { fileURLToPath } from 'node:url';
import { loadConfig, readSettingFile } from '@recipes/config';
import { collectionDirectoryMigrations, contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { runBackendService } from '@recipes/runtime';
import { commentsConfigSchema } from './config.js';
import { composeService } from './service.js';

const config = loadConfig(commentsConfigSchema);

await runBackendService({
  name: 'comments',
  config,
  migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
  sharedMigrations: [userDirectoryMigrations, contentDirectoryMigrations, collectionDirectoryMigrations],
  compose: composeService(config, readSettingFile('JWT_PUBLIC_KEY_FILE', config.JWT_PUBLIC_KEY_FILE)),
});
