import { backendEnv, env, notificationEnv, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const contentConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  ...notificationEnv,
  PORT: env.port(3002),
  /** Prometheus metrics, on a port of their own that the gateway never exposes. */
  METRICS_PORT: env.port(9102),
  /** The routes only the other services call (`/internal/...`), on a port of their own that the gateway never targets. */
  INTERNAL_PORT: env.port(3102),
  /** The users service's internal look-ups, for users the events have not brought yet. */
  USERS_INTERNAL_URL: env.url('http://127.0.0.1:3101'),
});

export type ContentConfig = z.infer<typeof contentConfigSchema>;
