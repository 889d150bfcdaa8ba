import { backendEnv, env, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const collectionsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  PORT: env.port(3004),
  /** Prometheus metrics, on a port of their own that the gateway never exposes. */
  METRICS_PORT: env.port(9104),
  /** The routes only the other services call (`/internal/...`), on a port of their own that the gateway never targets. */
  INTERNAL_PORT: env.port(3104),
  /** The users service's internal look-ups, for users the events have not brought yet. */
  USERS_INTERNAL_URL: env.url('http://127.0.0.1:3101'),
  /** The content service's internal look-ups, for content saved a moment after it was created. */
  CONTENT_INTERNAL_URL: env.url('http://127.0.0.1:3102'),
  /** Who may list a user's saved items: anyone (the default), or only that user (docs/api.md §2). */
  SAVED_ITEMS_VISIBILITY: z.enum(['public', 'owner']).default('public'),
});

export type CollectionsConfig = z.infer<typeof collectionsConfigSchema>;
