import { loadConfig } from '@recipes/config';
import { listen } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { metricsListener } from '@recipes/metrics';
import { buildApp } from './app.js';
import { gatewayConfigSchema } from './config.js';

const config = loadConfig(gatewayConfigSchema);
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
const app = await buildApp({ config, logger });
await app.register(metricsListener, { labels: { service: 'gateway' }, registries: [app.metricsRegistry] });
await listen(app, {
  host: config.HOST,
  port: config.PORT,
  metricsPort: config.METRICS_PORT,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
