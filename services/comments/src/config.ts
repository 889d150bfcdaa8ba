import { backendEnv, env, notificationEnv, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const commentsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  ...notificationEnv,
  PORT: env.port(3003),
  /** Prometheus metrics, on a port of their own that the gateway never exposes. */
  METRICS_PORT: env.port(9103),
  /** The owners' internal look-ups, for users and targets the events have not brought yet. */
  USERS_INTERNAL_URL: env.url('http://127.0.0.1:3101'),
  CONTENT_INTERNAL_URL: env.url('http://127.0.0.1:3102'),
  COLLECTIONS_INTERNAL_URL: env.url('http://127.0.0.1:3104'),
  /** Comments one caller may post per minute, on all targets together. */
  COMMENT_LIMIT_PER_MINUTE: env.positiveInt(30),
});

export type CommentsConfig = z.infer<typeof commentsConfigSchema>;
