import { ERASING_SERVICES, type ErasingService, NOBODY } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';

/**
 * Turns the live user `id` into a tombstone: the id and the username (still reserved by the unique index)
 * and when it was deleted; no password hash, no avatar. Gives the time, or undefined when it was no live user.
 */
export async function tombstone(db: Queryable, id: string): Promise<Date | undefined> {
  const { rows } = await db.query<{ deletedAt: Date }>(
    `UPDATE users SET password_hash = NULL, avatar_url = NULL, deleted_at = now(), updated_at = now(), revision = revision + 1
      WHERE id = $1 AND deleted_at IS NULL
      RETURNING deleted_at AS "deletedAt"`,
    [id],
  );
  return rows[0]?.deletedAt;
}

/**
 * What this service holds of `id` besides the tombstone: mutes and blocks both ways, sessions, idempotency records,
 * ends kept by owner.
 */
export async function eraseOwnParts(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM user_relations WHERE user_id = $1 OR target_id = $1', [id]);
  await db.query('DELETE FROM sessions WHERE user_id = $1', [id]);
  await db.query('DELETE FROM idempotency_keys WHERE caller_id = $1', [id]);
  await db.query('UPDATE ended_sessions SET user_id = $2 WHERE user_id = $1', [id, NOBODY]);
  await db.query('DELETE FROM sessions_not_before WHERE user_id = $1', [id]);
}

/** Records `service`'s confirmation; the deletion is complete once every erasing service has confirmed. */
export async function recordErasure(db: Queryable, id: string, service: ErasingService): Promise<void> {
  // Computed from the row itself, never from a read before: two confirmations at once both count.
  const confirmed = `array(SELECT DISTINCT s FROM unnest(erased_by || $2::text) AS s ORDER BY s)`;
  await db.query(
    `UPDATE users SET erased_by = ${confirmed},
            erasure_completed_at = CASE WHEN ${confirmed} @> $3::text[] THEN coalesce(erasure_completed_at, now()) END
      WHERE id = $1 AND deleted_at IS NOT NULL`,
    [id, service, [...ERASING_SERVICES]],
  );
}

/** A deletion's progress, for its own tests and for operators. */
export interface DeletionState {
  /** The name the tombstone keeps reserved. */
  username: string;
  deletedAt: Date;
  erasedBy: string[];
  completedAt: Date | null;
}

export async function findDeletion(db: Queryable, id: string): Promise<DeletionState | undefined> {
  const { rows } = await db.query<DeletionState>(
    `SELECT username, deleted_at AS "deletedAt", erased_by AS "erasedBy", erasure_completed_at AS "completedAt" FROM users WHERE id = $1 AND deleted_at IS NOT NULL`,
    [id],
  );
  return rows[0];
}

/** Deletions not yet complete that began more than `seconds` ago. */
export async function countIncompleteDeletions(db: Queryable, seconds: number): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM users
      WHERE deleted_at IS NOT NULL AND erasure_completed_at IS NULL AND deleted_at < now() - make_interval(secs => $1)`,
    [seconds],
  );
  return rows[0]!.count;
}
