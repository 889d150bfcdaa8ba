import type { Pool } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import type { Logger } from '@recipes/logging';
import type { PushMetrics } from '@recipes/metrics';
import { backoffMs } from '@recipes/outbox';
import { toNotification } from '../notifications.js';
import * as deliveries from '../repository/push-deliveries.js';
import type { DuePush } from '../repository/push-deliveries.js';
import { deleteDeadSubscription } from '../repository/push-subscriptions.js';
import { sendPush, topicOf, type Vapid } from './send.js';

/** The longest one push may take (docs/api.md §11.3). */
export const PUSH_TIMEOUT_MS = 10_000;
/** The decrypted payload's limit (docs/api.md §11.3); push services take 4096 bytes with the encryption's overhead. */
const MAX_PAYLOAD_BYTES = 3 * 1024;
/** The longest pause between two tries of one push. */
const MAX_RETRY_DELAY_MS = 10 * 60_000;

export interface DeliverySettings {
  pool: Pool;
  directory: UserDirectory;
  vapid: Vapid;
  ttlSeconds: number;
  metrics: PushMetrics;
  logger: Logger;
  /** Whether a token of the subscription's session would be refused now (docs/api.md §11.1). */
  sessionEnded(token: { userId: string; sessionId: string; issuedAt: number }): boolean;
  /** Asks for a look at the table once `ms` have passed (a push put back is due then). */
  wakeAfter(ms: number): void;
}

/**
 * What happens to one due push (docs/api.md §11.3): dropped when its notification was retracted, its
 * session ended or its TTL passed; otherwise sent, and then done with, put back with a growing delay
 * (honouring `Retry-After`) until its TTL passes, or its subscription deleted when the push service
 * says it is dead.
 */
export function pushDelivery({
  pool,
  directory,
  vapid,
  ttlSeconds,
  metrics,
  logger,
  sessionEnded,
  wakeAfter,
}: DeliverySettings) {
  async function removeSubscription(push: DuePush, reason: 'gone' | 'rejected' | 'session_ended'): Promise<void> {
    if (await deleteDeadSubscription(pool, push.subscription.id)) metrics.subscriptionsRemoved(reason);
  }

  return async function deliver(push: DuePush, stopping: AbortSignal): Promise<void> {
    const { subscription } = push;
    const issuedAt = Math.floor(subscription.createdAt.getTime() / 1000);
    if (sessionEnded({ userId: subscription.userId, sessionId: subscription.sessionId ?? '', issuedAt }))
      return removeSubscription(push, 'session_ended');
    const leftMs = push.queuedAt.getTime() + ttlSeconds * 1000 - Date.now();
    if (leftMs <= 0) {
      metrics.failed('expired');
      return deliveries.finishPush(pool, push);
    }
    const found = await deliveries.findPushedNotification(pool, push.notificationId);
    // Retracted before its push went: not pushed.
    if (!found) return deliveries.finishPush(pool, push);
    const actor = (await directory.findByIds([found.actorId])).get(found.actorId);
    if (!actor) {
      logger.warn(
        { notificationId: found.id, actorId: found.actorId },
        'push of a notification of an unknown actor left out',
      );
      return deliveries.finishPush(pool, push);
    }
    const { unread, ...record } = found;
    const payload = JSON.stringify({
      notification: toNotification(record, { id: actor.id, username: actor.username, avatarUrl: actor.avatarUrl }),
      unreadCount: unread,
    });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      logger.error({ notificationId: found.id, bytes: Buffer.byteLength(payload) }, 'push payload over 3 KB left out');
      return deliveries.finishPush(pool, push);
    }
    const outcome = await sendPush(subscription, payload, {
      vapid,
      ttlSeconds: Math.ceil(leftMs / 1000),
      topic: topicOf(found.groupKey),
      timeoutMs: PUSH_TIMEOUT_MS,
      stopping,
    });
    switch (outcome.kind) {
      case 'sent':
        metrics.sent();
        return deliveries.finishPush(pool, push);
      case 'gone':
        metrics.failed('gone');
        return removeSubscription(push, 'gone');
      case 'rejected':
        logger.warn(
          { subscriptionId: subscription.id, status: outcome.status, body: outcome.body },
          'push service rejected a push: subscription removed',
        );
        metrics.failed('rejected');
        return removeSubscription(push, 'rejected');
      case 'retry': {
        // Cut short by a shutdown: due again at once, for another instance or the next start.
        if (outcome.reason === 'stopping') return deliveries.retryPushLater(pool, push, 0, false);
        const delayMs = Math.min(Math.max(outcome.retryAfterMs ?? 0, backoffMs(push.attempts + 1)), MAX_RETRY_DELAY_MS);
        if (delayMs >= push.queuedAt.getTime() + ttlSeconds * 1000 - Date.now()) {
          metrics.failed('expired');
          return deliveries.finishPush(pool, push);
        }
        logger.info({ subscriptionId: subscription.id, reason: outcome.reason, delayMs }, 'push failed; retrying');
        metrics.retried();
        await deliveries.retryPushLater(pool, push, delayMs);
        return wakeAfter(delayMs);
      }
    }
  };
}
