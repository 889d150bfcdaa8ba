import { fileURLToPath } from 'node:url';
import { loadConfig, readSettingFile } from '@recipes/config';
import { runBackendService } from '@recipes/runtime';
import { buildApp } from './app.js';
import { usersConfigSchema } from './config.js';

const config = loadConfig(usersConfigSchema);
const keys = {
  privateKey: readSettingFile('JWT_PRIVATE_KEY_FILE', config.JWT_PRIVATE_KEY_FILE),
  publicKey: readSettingFile('JWT_PUBLIC_KEY_FILE', config.JWT_PUBLIC_KEY_FILE),
};

await runBackendService({
  name: 'users',
  config,
  migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
  compose: async (context) => ({ app: await buildApp({ ...context, config, keys }) }),
});
