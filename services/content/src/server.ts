import { fileURLToPath } from 'node:url';
import { loadConfig, readSettingFile } from '@recipes/config';
import { userDirectoryMigrations } from '@recipes/directory';
import { runBackendService } from '@recipes/runtime';
import { composeContent } from './app.js';
import { contentConfigSchema } from './config.js';

const config = loadConfig(contentConfigSchema);
const publicKey = readSettingFile('JWT_PUBLIC_KEY_FILE', config.JWT_PUBLIC_KEY_FILE);

await runBackendService({
  name: 'content',
  config,
  migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
  sharedMigrations: [userDirectoryMigrations],
  compose: (context) => composeContent({ ...context, config, publicKey }),
});
