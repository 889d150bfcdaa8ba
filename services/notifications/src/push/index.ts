import type { Pool } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import type { Logger } from '@recipes/logging';
import { type PushMetrics, pushMetrics, type Registry } from '@recipes/metrics';
import type { NotificationsConfig } from '../config.js';
import { countPendingPushes } from '../repository/push-deliveries.js';
import { pushDelivery } from './deliver.js';
import { PushSender } from './sender.js';
import { type EndedSession, pushSubscriptions } from './subscriptions.js';

/** The ended sessions this process learns of (`EndedSessions` of @recipes/auth, structurally). */
export interface SessionEnds {
  refuses(token: { userId: string; sessionId: string; issuedAt: number }): boolean;
  onEnded(listener: (end: EndedSession) => void): () => void;
}

/**
 * Web Push (docs/api.md §11.3): the subscriptions, which end with their session, and the sender of the
 * push outbox. Without a VAPID pair configured, subscribing is refused and nothing is sent.
 */
export function webPush({
  pool,
  config,
  directory,
  sessionEnds,
  logger,
}: {
  pool: Pool;
  config: NotificationsConfig;
  directory: UserDirectory;
  sessionEnds: SessionEnds;
  logger: Logger;
}) {
  let metrics: PushMetrics | undefined;
  const subscriptions = pushSubscriptions(pool, () => metrics, logger);
  sessionEnds.onEnded((end) => void subscriptions.endSessions(end));
  const { PUSH_VAPID_PUBLIC_KEY: publicKey, PUSH_VAPID_PRIVATE_KEY: privateKey, PUSH_VAPID_SUBJECT: subject } = config;
  const vapid = publicKey && privateKey ? { publicKey, privateKey, subject } : undefined;

  return {
    /** The application server key browsers subscribe with; undefined when Web Push is off. */
    publicKey: vapid?.publicKey,
    allowPrivateEndpoints: config.PUSH_ALLOW_PRIVATE_ENDPOINTS,
    subscriptions,

    /** Counts in `registry` and starts sending, if Web Push is on; gives the function that stops it. */
    start(registry: Registry): () => Promise<void> {
      const counted = pushMetrics(registry, () => countPendingPushes(pool));
      metrics = counted;
      if (!vapid) return async () => undefined;
      const sender = new PushSender({
        pool,
        schema: 'notifications',
        databaseUrl: config.DATABASE_URL,
        logger,
        deliver: pushDelivery({
          pool,
          directory,
          vapid,
          ttlSeconds: config.PUSH_TTL_SECONDS,
          metrics: counted,
          logger,
          sessionEnded: (token) => sessionEnds.refuses(token),
        }),
      });
      sender.start();
      return () => sender.stop();
    },
  };
}

export type WebPush = ReturnType<typeof webPush>;
