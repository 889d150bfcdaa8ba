import type { UserSnapshot } from '@recipes/contracts';
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
