import type { Pool } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import type { Logger } from '@recipes/logging';
import type { PushMetrics } from '@recipes/metrics';
import { backoffMs } from '@recipes/outbox';
import { toNotification } from '../notifications.js';
import type { DuePush } from '../repository/push-deliveries.js';
import { deleteDeadSubscription } from '../repository/push-subscriptions.js';
import { sendPush, topicOf, type Vapid } from './send.js';

/** The longest one push may take (docs/api.md §11.3). */
export const PUSH_TIMEOUT_MS = 10_000;
/** The decrypted payload's limit (docs/api.md §11.3); push services take 4096 bytes with the encryption's overhead. */
const MAX_PAYLOAD_BYTES = 3 * 1024;
/** The longest pause between two tries of one push. */
const MAX_RETRY_DELAY_MS = 10 * 60_000;

/**
 * What became of one push: done with (sent, or given up), to be tried again in `delayMs` (`failed`: after
 * a failure, which counts towards its next delay), or gone with its subscription.
 */
export type Handled =
  { kind: 'done' } | { kind: 'retry'; delayMs: number; failed: boolean } | { kind: 'subscription_removed' };

const DONE: Handled = { kind: 'done' };
const REMOVED: Handled = { kind: 'subscription_removed' };

export interface DeliverySettings {
  pool: Pool;
  directory: UserDirectory;
  vapid: Vapid;
  ttlSeconds: number;
  metrics: PushMetrics;
  logger: Logger;
  /** Whether a token of the subscription's session would be refused now (docs/api.md §11.1). */
  sessionEnded(token: { userId: string; sessionId: string; issuedAt: number }): boolean;
}

/**
 * What happens to one due push (docs/api.md §11.3), which the claim gave with its notification, unread
 * count and actor (a notification retracted before its push went is never claimed): dropped when its
 * session ended or its TTL passed; otherwise sent, and then done with, put back with a growing delay
 * (honouring `Retry-After`) until its TTL passes, or its subscription deleted when the push service says
 * it is dead. The push's row is the sender's to settle.
 */
export function pushDelivery({ pool, directory, vapid, ttlSeconds, metrics, logger, sessionEnded }: DeliverySettings) {
  async function removeSubscription(push: DuePush, reason: 'gone' | 'rejected' | 'session_ended'): Promise<Handled> {
    if (await deleteDeadSubscription(pool, push.subscription.id)) metrics.subscriptionsRemoved(reason);
    return REMOVED;
  }

  /** The actor as the claim found them, else as the directory knows them (one registered a moment ago). */
  async function actorOf(push: DuePush) {
    if (push.actor) return push.actor;
    const { actorId } = push.notification;
    const found = (await directory.findByIds([actorId])).get(actorId);
    return found && { id: found.id, username: found.username, avatarUrl: found.avatarUrl };
  }

  return async function deliver(push: DuePush, stopping: AbortSignal): Promise<Handled> {
    const { subscription, notification } = push;
    const issuedAt = Math.floor(subscription.createdAt.getTime() / 1000);
    if (sessionEnded({ userId: subscription.userId, sessionId: subscription.sessionId ?? '', issuedAt }))
      return removeSubscription(push, 'session_ended');
    const leftMs = push.queuedAt.getTime() + ttlSeconds * 1000 - Date.now();
    if (leftMs <= 0) {
      metrics.failed('expired');
      return DONE;
    }
    const actor = await actorOf(push);
    if (!actor) {
      logger.warn(
        { notificationId: notification.id, actorId: notification.actorId },
        'push of a notification of an unknown actor left out',
      );
      return DONE;
    }
    const payload = JSON.stringify({ notification: toNotification(notification, actor), unreadCount: push.unread });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      logger.error(
        { notificationId: notification.id, bytes: Buffer.byteLength(payload) },
        'push payload over 3 KB left out',
      );
      return DONE;
    }
    const outcome = await sendPush(subscription, payload, {
      vapid,
      ttlSeconds: Math.ceil(leftMs / 1000),
      topic: topicOf(notification.groupKey),
      timeoutMs: PUSH_TIMEOUT_MS,
      stopping,
    });
    switch (outcome.kind) {
      case 'sent':
        metrics.sent();
        return DONE;
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
        if (outcome.reason === 'stopping') return { kind: 'retry', delayMs: 0, failed: false };
        const delayMs = Math.min(Math.max(outcome.retryAfterMs ?? 0, backoffMs(push.attempts + 1)), MAX_RETRY_DELAY_MS);
        if (delayMs >= push.queuedAt.getTime() + ttlSeconds * 1000 - Date.now()) {
          metrics.failed('expired');
          return DONE;
        }
        logger.info({ subscriptionId: subscription.id, reason: outcome.reason, delayMs }, 'push failed; retrying');
        metrics.retried();
        return { kind: 'retry', delayMs, failed: true };
      }
    }
  };
}
