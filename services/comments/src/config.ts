import {
  backendEnv,
  env,
  internalPortEnv,
  lookupEnv,
  notificationEnv,
  portsEnv,
  sharedStoreEnv,
  tokenEnv,
} from '@recipes/config';
import { z } from 'zod';

export const commentsConfigSchema = z.object({
  ...backendEnv,
  ...sharedStoreEnv,
  ...tokenEnv,
  ...notificationEnv,
  ...portsEnv({ PORT: 3003, METRICS_PORT: 9103 }),
  ...internalPortEnv(3103),
  ...lookupEnv,
  COMMENT_LIMIT_PER_MINUTE: env
    .positiveInt(30)
    .describe('comments one caller may post or edit per minute, on all targets together'),
});

export type CommentsConfig = z.infer<typeof commentsConfigSchema>;
