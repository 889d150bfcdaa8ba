import { backendEnv, env, internalPortEnv, lookupEnv, portsEnv, tokenEnv } from '@recipes/config';
import { z } from 'zod';

/** A key of the VAPID pair (RFC 8292), base64url. */
const vapidKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url')
  .optional();

/** Web Push (docs/api.md §11.3, docs/push.md). */
const pushEnv = {
  PUSH_VAPID_PUBLIC_KEY: vapidKey.describe(
    'the VAPID application server key (uncompressed P-256, base64url) browsers ' +
      'subscribe with; unset, Web Push is off (`npm start` generates a development pair)',
  ),
  PUSH_VAPID_PRIVATE_KEY: vapidKey.describe('the private half of the VAPID pair (base64url), which signs every push'),
  PUSH_VAPID_SUBJECT: env
    .string('mailto:push@localhost')
    .describe('a `mailto:` or `https:` URL push services can reach the operator at (RFC 8292 `sub`)'),
  PUSH_TTL_SECONDS: env
    .positiveInt(86_400)
    .describe('how long a push service keeps a push for an offline browser, and how long a failing push is retried'),
  PUSH_ALLOW_PRIVATE_ENDPOINTS: env
    .flag(false)
    .describe('accept `http` push endpoints and loopback, private and link-local hosts; for tests only'),
};

export const notificationsConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  ...portsEnv({ PORT: 3005, METRICS_PORT: 9105 }),
  ...internalPortEnv(3105),
  USERS_INTERNAL_URL: lookupEnv.USERS_INTERNAL_URL,
  STREAM_KEEP_ALIVE_MS: env
    .positiveInt(15_000)
    .describe(
      'how often an idle notification stream sends `: keep-alive`, so that proxies keep it open (docs/api.md §9)',
    ),
  STREAM_TICKETS_PER_USER: env
    .positiveInt(10)
    .describe('unused stream tickets one user may hold; taking one more revokes the oldest (docs/api.md §9)'),
  ...pushEnv,
});

export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;
