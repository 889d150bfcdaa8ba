import { backendEnv, env, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const notificationsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  PORT: env.port(3005),
  /** Prometheus metrics, on a port of their own that the gateway never exposes. */
  METRICS_PORT: env.port(9105),
  /** The users service's internal look-ups, for actors the events have not brought yet. */
  USERS_INTERNAL_URL: env.url('http://127.0.0.1:3101'),
  /** How often an idle notification stream sends a comment line, so that proxies keep it open (docs/api.md §9). */
  STREAM_KEEP_ALIVE_MS: env.positiveInt(15_000),
  /** Unused stream tickets one user may hold; one more revokes the oldest (docs/api.md §9). */
  STREAM_TICKETS_PER_USER: env.positiveInt(10),
});

export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;
