import type { Pool, Queryable } from '@recipes/db';

/** A response as it was sent, kept for replays. */
export interface KeptResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface KeptRow extends KeptResponse {
  fingerprint: string;
}

/**
 * The transaction-scoped lock of (schema, caller, key), taken without waiting: false while another
 * request with the key is running. The schema is in the hash since services share one database.
 */
export async function tryLockKey(db: Queryable, callerId: string, key: string): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_xact_lock(hashtextextended(current_schema() || ' ' || $1::text || ' ' || $2::text, 0)) AS locked`,
    [callerId, key],
  );
  return rows[0]!.locked;
}

/** The response kept for the key in the last 24 hours, if any; older rows count as gone. */
export async function findKept(db: Queryable, callerId: string, key: string): Promise<KeptRow | undefined> {
  const { rows } = await db.query<KeptRow>(
    `SELECT fingerprint, status, content_type AS "contentType", body FROM idempotency_keys
      WHERE caller_id = $1 AND key = $2 AND created_at > now() - interval '24 hours'`,
    [callerId, key],
  );
  return rows[0];
}

/** Keeps the first response; an expired row of the same key not purged yet is replaced. */
export async function keep(
  db: Queryable,
  callerId: string,
  key: string,
  fingerprint: string,
  response: KeptResponse,
): Promise<void> {
  await db.query(
    `INSERT INTO idempotency_keys (caller_id, key, fingerprint, status, content_type, body) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (caller_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, content_type = EXCLUDED.content_type,
           body = EXCLUDED.body, created_at = EXCLUDED.created_at`,
    [callerId, key, fingerprint, response.status, response.contentType, response.body],
  );
}

/** Deletes the keys older than 24 hours; how many. */
export async function purgeExpiredKeys(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
  return rowCount ?? 0;
}
