import { fileURLToPath } from 'node:url';
import { loadConfig, readSettingFile } from '@recipes/config';
import { userDirectoryMigrations } from '@recipes/directory';
import { runBackendService } from '@recipes/runtime';
import { composeNotifications } from './app.js';
import { notificationsConfigSchema } from './config.js';

const config = loadConfig(notificationsConfigSchema);
const publicKey = readSettingFile('JWT_PUBLIC_KEY_FILE', config.JWT_PUBLIC_KEY_FILE);

await runBackendService({
  name: 'notifications',
  config,
  migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
  sharedMigrations: [userDirectoryMigrations],
  compose: (context) => composeNotifications({ ...context, config, publicKey }),
});
