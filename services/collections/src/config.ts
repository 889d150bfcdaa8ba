import { backendEnv, internalPortEnv, lookupEnv, portsEnv, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const collectionsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  ...portsEnv({ PORT: 3004, METRICS_PORT: 9104 }),
  ...internalPortEnv(3104),
  USERS_INTERNAL_URL: lookupEnv.USERS_INTERNAL_URL,
  CONTENT_INTERNAL_URL: lookupEnv.CONTENT_INTERNAL_URL,
  SAVED_ITEMS_VISIBILITY: z
    .enum(['public', 'owner'])
    .default('public')
    .describe("who may list a user's saved items: anyone, or with `owner` only that user (docs/api.md §2)"),
});

export type CollectionsConfig = z.infer<typeof collectionsConfigSchema>;
