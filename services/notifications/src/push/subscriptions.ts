import { newId, notFound } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import type { PushMetrics } from '@recipes/metrics';
import * as repository from '../repository/push-subscriptions.js';
import type { SubscriptionRecord } from '../repository/push-subscriptions.js';

/** Subscriptions one user may hold; one more removes their oldest (docs/api.md §11.3). */
export const SUBSCRIPTIONS_PER_USER = 10;

/** What ended (the `user.session.ended` event's data): these sessions of the user, or all issued before `notBefore`. */
export interface EndedSession {
  userId: string;
  sessionIds: readonly string[];
  notBefore: string | null;
}

export interface Subscriber {
  userId: string;
  /** The session of the caller's token; undefined for a token from before sessions. */
  sessionId: string | undefined;
}

/** A subscription as the API shows it. */
export const toSubscription = ({ id, endpoint, createdAt }: SubscriptionRecord) => ({
  id,
  endpoint,
  createdAt: createdAt.toISOString(),
});

/** Push subscriptions (docs/api.md §11.3): each its owner's only, and its session's. */
export function pushSubscriptions(pool: Pool, metrics: () => PushMetrics | undefined, logger: Logger) {
  return {
    /**
     * Stores a subscription, or replaces the caller's of the same endpoint (`created` false); their oldest beyond the
     * limit goes.
     */
    async subscribe(
      { userId, sessionId }: Subscriber,
      { endpoint, keys }: { endpoint: string; keys: { p256dh: string; auth: string } },
    ) {
      const saved = await withTransaction(pool, (tx) =>
        repository.saveSubscription(
          tx,
          { id: newId(), userId, sessionId: sessionId ?? null, endpoint, p256dh: keys.p256dh, auth: keys.auth },
          SUBSCRIPTIONS_PER_USER,
        ),
      );
      metrics()?.subscriptionsRemoved('over_limit', saved.dropped);
      return { subscription: toSubscription(saved.record), created: saved.created };
    },

    async list(userId: string) {
      return (await repository.findSubscriptions(pool, userId)).map(toSubscription);
    },

    /** Another user's or an unknown id is not found. */
    async unsubscribe(userId: string, id: string): Promise<void> {
      if (!(await repository.deleteSubscription(pool, userId, id))) throw notFound('Push subscription not found');
    },

    /** The subscriptions of sessions that ended go with them (docs/api.md §11.1). */
    async endSessions(end: EndedSession): Promise<void> {
      try {
        metrics()?.subscriptionsRemoved(
          'session_ended',
          await repository.deleteSessionSubscriptions(pool, end.userId, end.sessionIds, end.notBefore),
        );
      } catch (err) {
        // The sender checks each push's session as well, so one missed here is never pushed to.
        logger.warn({ err, userId: end.userId }, 'push subscriptions of ended sessions could not be deleted now');
      }
    },
  };
}
