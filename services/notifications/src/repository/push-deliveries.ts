import type { Author } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';
import type { NotificationRecord } from './rows.js';

/** A push due now to one subscription, with everything sending it needs. */
export interface DuePush {
  id: string;
  attempts: number;
  /** When its notification was stored: the TTL runs from here. */
  queuedAt: Date;
  subscription: {
    id: string;
    userId: string;
    sessionId: string | null;
    createdAt: Date;
    endpoint: string;
    p256dh: string;
    auth: string;
  };
  /** The notification it carries, as the list shows it but for its actor. */
  notification: NotificationRecord;
  /** The recipient's unread count as the push was claimed. */
  unread: number;
  /** The actor as the users read model holds them; undefined when it holds none yet. */
  actor: Author | undefined;
}

/** What becomes of a push that was handled: done with (sent, or given up), or tried again in `retryInMs`. */
export interface PushSettlement {
  push: DuePush;
  /** Absent when the push is done with. */
  retryInMs?: number;
  /** Whether it failed, which counts towards its next delay (a push cut short by a shutdown did not). */
  failed?: boolean;
  /** Whether its subscription's next due push, if any, is claimed in its place (its lease kept). */
  claimNext: boolean;
}

/**
 * The tail of the claim and of the settlement: from `leased` (the subscriptions leased, with the push
 * each is leased for, `push_id`), every column a `DuePush` needs: one round trip for what sending needs.
 */
const SELECT_DUE_PUSHES = `
  SELECT d.id::text, d.attempts, d.created_at AS "queuedAt",
         l.id AS "subscriptionId", l.user_id AS "userId", l.session_id AS "sessionId", l.created_at AS "subscribedAt",
         l.endpoint, l.p256dh, l.auth,
         n.id AS "notificationId", n.type, n.group_key AS "groupKey", n.actor_id AS "actorId", n.content_type AS "contentType",
         n.content_id AS "contentId", n.comment_id AS "commentId", n.is_read AS "isRead", n.created_at AS "createdAt",
         coalesce(c.unread, 0) AS unread, u.username AS "actorUsername", u.avatar_url AS "actorAvatarUrl"
    FROM leased l
    JOIN push_deliveries d ON d.id = l.push_id
    JOIN notifications n ON n.id = d.notification_id
    LEFT JOIN notification_counts c ON c.recipient_id = n.recipient_id
    LEFT JOIN users u ON u.id = n.actor_id`;

/*
 * A notification is looked up by its key for each push row, never joined as a whole: a join may be planned
 * as a hash of every notification, however few pushes wait.
 */
const STANDS = '(SELECT n.retracted_at IS NULL FROM notifications n WHERE n.id = d.notification_id)';

/**
 * The oldest due push, other than its own (`f.id`) when `except`, of each subscription of `from` (rows with
 * a `subscription_id`) whose notification stands: an index range of that subscription's pushes each.
 */
const nextDuePushes = (from: string, { except }: { except: boolean }) => `
  SELECT f.subscription_id, x.id FROM ${from} f
   CROSS JOIN LATERAL (
     SELECT d.id FROM push_deliveries d
      WHERE d.subscription_id = f.subscription_id${except ? ' AND d.id <> f.id' : ''}
        AND d.available_at <= clock_timestamp() AND ${STANDS}
      ORDER BY d.created_at, d.id LIMIT 1) x`;

const LEASE_UNTIL = `clock_timestamp() + $2 * interval '1 millisecond'`;

/*
 * Leases up to $1 subscriptions that have a push due and no sender on them (none leased, or a lease run
 * out: its sender died), for $2 ms, each for its oldest due push whose notification stands: one push at
 * a time per endpoint, whichever instance sends. SKIP LOCKED keeps instances that claim at once apart.
 * The due pushes of the picked subscriptions' notifications retracted since they were queued go
 * (docs/api.md §11.3); a subscription with none other due is left unleased.
 */
const CLAIM = `
  WITH picked AS (
    SELECT s.id AS subscription_id FROM push_subscriptions s
     WHERE s.id IN (SELECT subscription_id FROM push_deliveries WHERE available_at <= clock_timestamp())
       AND (s.busy_until IS NULL OR s.busy_until < clock_timestamp())
     LIMIT $1 FOR UPDATE OF s SKIP LOCKED
  ), retracted AS (
    DELETE FROM push_deliveries d USING picked p
     WHERE d.subscription_id = p.subscription_id AND d.available_at <= clock_timestamp() AND NOT ${STANDS}
  ), next AS (${nextDuePushes('picked', { except: false })}
  ), leased AS (
    UPDATE push_subscriptions s SET busy_until = ${LEASE_UNTIL}
      FROM next x WHERE s.id = x.subscription_id
    RETURNING s.id, s.user_id, s.session_id, s.created_at, s.endpoint, s.p256dh, s.auth, x.id AS push_id
  )${SELECT_DUE_PUSHES}`;

/*
 * Settles the pushes of $1 (JSON: each push's id, its subscription's, and `retry_in_ms`, `failed`,
 * `claim_next`): the done with (`retry_in_ms` null) go, the others are due again in `retry_in_ms` (one
 * more attempt counted when that try `failed`); then each subscription is free again, or, when its push
 * asked for it and it has another due, leased for $2 ms more for its next, which is returned. JSON rather
 * than arrays: PostgreSQL estimates the rows of an array it is given, so that no plan it made before would
 * do and it planned the statement anew on every call, which cost more than running it.
 */
const SETTLE = `
  WITH settled AS (
    SELECT * FROM json_to_recordset($1::json)
      AS t(id bigint, subscription_id uuid, retry_in_ms int, failed int, claim_next bool)
  ), done AS (
    DELETE FROM push_deliveries d USING settled t WHERE d.id = t.id AND t.retry_in_ms IS NULL
  ), later AS (
    UPDATE push_deliveries d
       SET attempts = d.attempts + t.failed, available_at = clock_timestamp() + t.retry_in_ms * interval '1 millisecond'
      FROM settled t WHERE d.id = t.id AND t.retry_in_ms IS NOT NULL
  ), next AS (${nextDuePushes('(SELECT * FROM settled WHERE claim_next)', { except: true })}
  ), leased AS (
    UPDATE push_subscriptions s SET busy_until = CASE WHEN x.id IS NULL THEN NULL ELSE ${LEASE_UNTIL} END
      FROM settled t LEFT JOIN next x ON x.subscription_id = t.subscription_id
     WHERE s.id = t.subscription_id
    RETURNING s.id, s.user_id, s.session_id, s.created_at, s.endpoint, s.p256dh, s.auth, x.id AS push_id
  )${SELECT_DUE_PUSHES}`;

interface DuePushRow {
  id: string;
  attempts: number;
  queuedAt: Date;
  subscriptionId: string;
  userId: string;
  sessionId: string | null;
  subscribedAt: Date;
  endpoint: string;
  p256dh: string;
  auth: string;
  notificationId: string;
  unread: number;
  actorUsername: string | null;
  actorAvatarUrl: string | null;
}

function duePushOf(row: DuePushRow & Omit<NotificationRecord, 'id'>): DuePush {
  const { id, attempts, queuedAt, subscriptionId, userId, sessionId, subscribedAt, endpoint, p256dh, auth } = row;
  const { notificationId, type, groupKey, actorId, contentType, contentId, commentId, isRead, createdAt } = row;
  const { unread, actorUsername, actorAvatarUrl } = row;
  return {
    id,
    attempts,
    queuedAt,
    subscription: { id: subscriptionId, userId, sessionId, createdAt: subscribedAt, endpoint, p256dh, auth },
    notification: { id: notificationId, type, groupKey, actorId, contentType, contentId, commentId, isRead, createdAt },
    unread,
    actor: actorUsername === null ? undefined : { id: actorId, username: actorUsername, avatarUrl: actorAvatarUrl },
  };
}

/**
 * Leases up to `limit` subscriptions with a push due for `leaseMs`, and gives each one's oldest due push
 * with what sending it needs (see CLAIM): one statement.
 */
export async function claimDuePushes(db: Queryable, limit: number, leaseMs: number): Promise<DuePush[]> {
  const { rows } = await db.query<DuePushRow & Omit<NotificationRecord, 'id'>>(CLAIM, [limit, leaseMs]);
  return rows.map(duePushOf);
}

/**
 * Settles handled pushes, in one statement for all of them (see SETTLE), and gives the next push of each
 * subscription that asked for one and has one due, by subscription id: leased for `leaseMs`, ready to send.
 */
export async function settlePushes(
  db: Queryable,
  settlements: readonly PushSettlement[],
  leaseMs: number,
): Promise<Map<string, DuePush>> {
  const settled = settlements.map(({ push, retryInMs, failed, claimNext }) => ({
    id: push.id,
    subscription_id: push.subscription.id,
    retry_in_ms: retryInMs === undefined ? null : Math.round(retryInMs),
    failed: failed ? 1 : 0,
    claim_next: claimNext,
  }));
  const { rows } = await db.query<DuePushRow & Omit<NotificationRecord, 'id'>>(SETTLE, [
    JSON.stringify(settled),
    leaseMs,
  ]);
  return new Map(rows.map((row) => [row.subscriptionId, duePushOf(row)]));
}

/** Pushes not yet sent nor given up, for the gauge. */
export async function countPendingPushes(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM push_deliveries');
  return rows[0]?.count ?? 0;
}
