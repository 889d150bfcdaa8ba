import { backendEnv, env, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const notificationsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  PORT: env.port(3005),
  /** The users service's internal look-ups, for actors the events have not brought yet. */
  USERS_INTERNAL_URL: env.url('http://127.0.0.1:3001'),
});

export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;
