import {
  backendEnv,
  env,
  exportSourcesEnv,
  internalPortEnv,
  portsEnv,
  sharedStoreEnv,
  signingEnv,
  tokenEnv,
} from '@recipes/config';
import { z } from 'zod';

export const usersConfigSchema = z.object({
  ...backendEnv,
  ...sharedStoreEnv,
  ...tokenEnv,
  ...signingEnv,
  ...portsEnv({ PORT: 3001, METRICS_PORT: 9101 }),
  ...internalPortEnv(3101),
  RATE_LIMIT_WINDOW_MS: env.positiveInt(60_000).describe('window of the login and registration limits'),
  LOGIN_LIMIT_PER_ADDRESS: env
    .positiveInt(30)
    .describe(
      'login attempts per client address per window, failed or not: what one address can make the service hash',
    ),
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: env
    .positiveInt(10)
    .describe(
      'failed logins per window for one username from one address; past it that address gets `429` ' +
        '(a success clears its count for that username), while the owner still logs in from another',
    ),
  LOGIN_FAILURES_PER_ADDRESS: env
    .positiveInt(20)
    .describe('failed logins per window from one address, whatever the usernames; past it, `429`'),
  REGISTER_LIMIT_PER_ADDRESS: env.positiveInt(20).describe('registrations per client address per window'),
  SESSION_MAX_DAYS: env
    .positiveInt(30)
    .describe('a session ends this many days after its login, however often it is refreshed'),
  SESSION_IDLE_DAYS: env.positiveInt(14).describe('a session ends after this many days without a refresh'),
  SESSIONS_PER_USER: env
    .positiveInt(50)
    .describe(
      'live sessions one user may have; a login past it ends the least recently used (`user.session.ended`, reason `too_many_sessions`)',
    ),
  ...exportSourcesEnv,
  EXPORT_LIMIT_PER_HOUR: env
    .positiveInt(3)
    .describe('data exports (`GET /api/users/me/export`) one user may take per hour; past it, `429`'),
  REFRESH_LIMIT_PER_SESSION: env
    .positiveInt(10)
    .describe(
      'refreshes of one session per window (`RATE_LIMIT_WINDOW_MS`); past it, `429` (an answer repeated within the grace does not count)',
    ),
});

export type UsersConfig = z.infer<typeof usersConfigSchema>;
