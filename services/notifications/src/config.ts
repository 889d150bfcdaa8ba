import { backendEnv, env, internalPortEnv, lookupEnv, portsEnv, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const notificationsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  ...portsEnv({ PORT: 3005, METRICS_PORT: 9105 }),
  ...internalPortEnv(3105),
  USERS_INTERNAL_URL: lookupEnv.USERS_INTERNAL_URL,
  STREAM_KEEP_ALIVE_MS: env
    .positiveInt(15_000)
    .describe('how often an idle notification stream sends `: keep-alive`, so that proxies keep it open (docs/api.md §9)'),
  STREAM_TICKETS_PER_USER: env.positiveInt(10).describe('unused stream tickets one user may hold; taking one more revokes the oldest (docs/api.md §9)'),
});

export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;
