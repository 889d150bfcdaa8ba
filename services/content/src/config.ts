import { backendEnv, internalPortEnv, lookupEnv, notificationEnv, portsEnv, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const contentConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  ...notificationEnv,
  ...portsEnv({ PORT: 3002, METRICS_PORT: 9102 }),
  ...internalPortEnv(3102),
  USERS_INTERNAL_URL: lookupEnv.USERS_INTERNAL_URL,
});

export type ContentConfig = z.infer<typeof contentConfigSchema>;
