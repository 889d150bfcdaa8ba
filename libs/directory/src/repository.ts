import type { UserRelation, UserSnapshot } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';

const columns = `id, username, avatar_url AS "avatarUrl", revision`;

/** Stores snapshots; one older than the row already held changes nothing, whatever order they come in. */
export async function upsertUsers(db: Queryable, users: UserSnapshot[]): Promise<void> {
  if (users.length === 0) return;
  await db.query(
    `INSERT INTO users (id, username, avatar_url, revision)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[])
     ON CONFLICT (id) DO UPDATE
       SET username = EXCLUDED.username, avatar_url = EXCLUDED.avatar_url, revision = EXCLUDED.revision
       WHERE users.revision < EXCLUDED.revision`,
    [users.map((u) => u.id), users.map((u) => u.username), users.map((u) => u.avatarUrl), users.map((u) => u.revision)],
  );
}

export async function findUsersByIds(db: Queryable, ids: string[]): Promise<UserSnapshot[]> {
  const { rows } = await db.query<UserSnapshot>(`SELECT ${columns} FROM users WHERE id = ANY($1::uuid[])`, [ids]);
  return rows;
}

export async function findUsersByUsernames(db: Queryable, usernames: string[]): Promise<UserSnapshot[]> {
  const { rows } = await db.query<UserSnapshot>(
    `SELECT ${columns} FROM users WHERE lower(username) = ANY($1::text[])`,
    [usernames.map((name) => name.toLowerCase())],
  );
  return rows;
}

/** Stores a pair's state; one older than the row already held changes nothing, whatever order they come in. */
export async function upsertRelation(db: Queryable, relation: UserRelation): Promise<void> {
  await db.query(
    `INSERT INTO user_relations (user_id, target_id, muted, blocked, last_unblocked_at, revision) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id, target_id) DO UPDATE
       SET muted = EXCLUDED.muted, blocked = EXCLUDED.blocked, last_unblocked_at = EXCLUDED.last_unblocked_at, revision = EXCLUDED.revision,
           applied_at = now()
       WHERE user_relations.revision < EXCLUDED.revision`,
    [relation.userId, relation.targetId, relation.muted, relation.blocked, relation.lastUnblockedAt, relation.revision],
  );
}

/** Those among `userIds` who block `targetId`. */
export async function findBlockers(db: Queryable, targetId: string, userIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ userId: string }>(
    'SELECT user_id AS "userId" FROM user_relations WHERE target_id = $1 AND user_id = ANY($2::uuid[]) AND blocked',
    [targetId, userIds],
  );
  return rows.map((row) => row.userId);
}
