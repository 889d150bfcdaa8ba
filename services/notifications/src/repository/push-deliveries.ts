import type { Queryable } from '@recipes/db';
import type { NotificationRecord } from './rows.js';

/** A push due now to one subscription, with what sending it needs. */
export interface DuePush {
  id: string;
  attempts: number;
  /** When its notification was stored: the TTL runs from here. */
  queuedAt: Date;
  notificationId: string;
  subscription: {
    id: string;
    userId: string;
    sessionId: string | null;
    createdAt: Date;
    endpoint: string;
    p256dh: string;
    auth: string;
  };
}

/**
 * Leases up to `limit` subscriptions that have a push due and no sender on them (none leased, or a lease
 * run out: its sender died), for `leaseMs`, and gives the oldest due push of each: one push at a time per
 * endpoint, whichever instance sends. SKIP LOCKED keeps instances that claim at once apart.
 */
export async function claimDuePushes(db: Queryable, limit: number, leaseMs: number): Promise<DuePush[]> {
  const { rows } = await db.query<
    DuePush & {
      subscriptionId: string;
      userId: string;
      sessionId: string | null;
      createdAt: Date;
      endpoint: string;
      p256dh: string;
      auth: string;
    }
  >(
    `WITH picked AS (
       SELECT s.id FROM push_subscriptions s
        WHERE s.id IN (SELECT subscription_id FROM push_deliveries WHERE available_at <= clock_timestamp())
          AND (s.busy_until IS NULL OR s.busy_until < clock_timestamp())
        LIMIT $1 FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE push_subscriptions s SET busy_until = clock_timestamp() + $2 * interval '1 millisecond'
         FROM picked WHERE s.id = picked.id
       RETURNING s.id, s.user_id, s.session_id, s.created_at, s.endpoint, s.p256dh, s.auth
     )
     SELECT DISTINCT ON (d.subscription_id)
            d.id::text, d.attempts, d.created_at AS "queuedAt", d.notification_id AS "notificationId", l.id AS "subscriptionId",
            l.user_id AS "userId", l.session_id AS "sessionId", l.created_at AS "createdAt", l.endpoint, l.p256dh, l.auth
       FROM leased l JOIN push_deliveries d ON d.subscription_id = l.id AND d.available_at <= clock_timestamp()
      ORDER BY d.subscription_id, d.created_at, d.id`,
    [limit, leaseMs],
  );
  return rows.map(({ subscriptionId, userId, sessionId, createdAt, endpoint, p256dh, auth, ...push }) => ({
    ...push,
    subscription: { id: subscriptionId, userId, sessionId, createdAt, endpoint, p256dh, auth },
  }));
}

/** The push is done with (sent, or given up): its row goes, and its subscription is free for the next. */
export async function finishPush(db: Queryable, push: DuePush): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM push_deliveries WHERE id = $1)
     UPDATE push_subscriptions SET busy_until = NULL WHERE id = $2`,
    [push.id, push.subscription.id],
  );
}

/**
 * The push is tried again in `delayMs` (`failed`: after a failure, which counts towards its next delay);
 * its subscription is free meanwhile for the pushes due before.
 */
export async function retryPushLater(db: Queryable, push: DuePush, delayMs: number, failed = true): Promise<void> {
  await db.query(
    `WITH later AS (UPDATE push_deliveries SET attempts = attempts + $4::int, available_at = clock_timestamp() + $2 * interval '1 millisecond' WHERE id = $1)
     UPDATE push_subscriptions SET busy_until = NULL WHERE id = $3`,
    [push.id, delayMs, push.subscription.id, failed ? 1 : 0],
  );
}

/** The notification a push carries, with the recipient's unread count; none once it is retracted or gone. */
export async function findPushedNotification(db: Queryable, notificationId: string) {
  const { rows } = await db.query<NotificationRecord & { unread: number }>(
    `SELECT n.id, n.type, n.group_key AS "groupKey", n.actor_id AS "actorId", n.content_type AS "contentType", n.content_id AS "contentId",
            n.comment_id AS "commentId", n.is_read AS "isRead", n.created_at AS "createdAt", coalesce(c.unread, 0) AS unread
       FROM notifications n LEFT JOIN notification_counts c ON c.recipient_id = n.recipient_id
      WHERE n.id = $1 AND n.retracted_at IS NULL`,
    [notificationId],
  );
  return rows[0];
}

/** Pushes not yet sent nor given up, for the gauge. */
export async function countPendingPushes(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM push_deliveries');
  return rows[0]?.count ?? 0;
}
