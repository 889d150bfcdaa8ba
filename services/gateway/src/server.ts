import { loadConfig } from '@recipes/config';
import { listen } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { buildApp } from './app.js';
import { gatewayConfigSchema } from './config.js';

const config = loadConfig(gatewayConfigSchema);
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
const app = await buildApp({ config, logger });
await listen(app, { host: config.HOST, port: config.PORT, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
