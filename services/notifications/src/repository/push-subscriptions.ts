import type { Queryable } from '@recipes/db';

/** A push subscription as the API shows it (docs/api.md §11.3). */
export interface SubscriptionRecord {
  id: string;
  endpoint: string;
  createdAt: Date;
}

export interface NewSubscription {
  id: string;
  userId: string;
  /** The `sid` of the token that subscribes; null for a token from before sessions. */
  sessionId: string | null;
  endpoint: string;
  p256dh: string;
  auth: string;
}

const shown = 'id, endpoint, created_at AS "createdAt"';

/**
 * Stores `subscription`, or replaces the user's subscription of the same endpoint (keeping its id), then
 * drops the user's oldest beyond `keep`; under the user's push lock, so that two at once keep the limit.
 * Gives the row, whether it is new, and how many were dropped.
 */
export async function saveSubscription(tx: Queryable, subscription: NewSubscription, keep: number) {
  const { id, userId, sessionId, endpoint, p256dh, auth } = subscription;
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('notifications.push:' || $1::text, 0))`, [userId]);
  const { rows } = await tx.query<SubscriptionRecord & { created: boolean }>(
    `INSERT INTO push_subscriptions (id, user_id, session_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id, endpoint) DO UPDATE
       SET session_id = EXCLUDED.session_id, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, created_at = clock_timestamp()
     RETURNING ${shown}, (xmax = 0) AS created`,
    [id, userId, sessionId, endpoint, p256dh, auth],
  );
  const { rowCount } = await tx.query(
    `DELETE FROM push_subscriptions WHERE id IN (
       SELECT id FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2)`,
    [userId, keep],
  );
  const { created, ...record } = rows[0]!;
  return { record, created, dropped: rowCount ?? 0 };
}

/** The user's subscriptions, newest first. */
export async function findSubscriptions(db: Queryable, userId: string): Promise<SubscriptionRecord[]> {
  const { rows } = await db.query<SubscriptionRecord>(
    `SELECT ${shown} FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at DESC, id DESC`,
    [userId],
  );
  return rows;
}

/** Deletes one of the user's subscriptions; false when they have none of that id. */
export async function deleteSubscription(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2', [id, userId]);
  return (rowCount ?? 0) > 0;
}

/** Deletes a subscription the push service called dead; gives whether it was still there. */
export async function deleteDeadSubscription(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM push_subscriptions WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/**
 * Deletes the subscriptions of ended sessions (docs/api.md §11.1): those of `sessionIds`, and, when every
 * session of the user issued before `notBefore` ended, those made before it. Gives how many went.
 */
export async function deleteSessionSubscriptions(
  db: Queryable,
  userId: string,
  sessionIds: readonly string[],
  notBefore: string | null,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM push_subscriptions
      WHERE user_id = $1 AND (session_id = ANY($2::uuid[]) OR ($3::timestamptz IS NOT NULL AND created_at < $3::timestamptz))`,
    [userId, sessionIds, notBefore],
  );
  return rowCount ?? 0;
}
