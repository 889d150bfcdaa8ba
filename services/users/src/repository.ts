import type { Queryable } from '@recipes/db';

/** A row of `users`, as the domain sees it. */
export interface UserRecord {
  id: string;
  username: string;
  passwordHash: string;
  avatarUrl: string | null;
  revision: number;
}

const columns = `id, username, password_hash AS "passwordHash", avatar_url AS "avatarUrl", revision`;

export async function insertUser(db: Queryable, user: Omit<UserRecord, 'revision'>): Promise<UserRecord> {
  const { rows } = await db.query<UserRecord>(
    `INSERT INTO users (id, username, password_hash, avatar_url) VALUES ($1, $2, $3, $4) RETURNING ${columns}`,
    [user.id, user.username, user.passwordHash, user.avatarUrl],
  );
  return rows[0]!;
}

export async function findUserById(db: Queryable, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${columns} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${columns} FROM users WHERE lower(username) = lower($1)`, [username]);
  return rows[0];
}

export async function findUsersByUsernames(db: Queryable, usernames: string[]): Promise<UserRecord[]> {
  const { rows } = await db.query<UserRecord>(
    `SELECT ${columns} FROM users WHERE lower(username) = ANY(SELECT lower(name) FROM unnest($1::text[]) AS name)`,
    [usernames],
  );
  return rows;
}

/**
 * Swaps the hash for another of the same password, unless it changed meanwhile. The profile is as it was:
 * no revision, no event.
 */
export async function replacePasswordHash(db: Queryable, id: string, current: string, replacement: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [id, current, replacement]);
}

export async function updateAvatar(db: Queryable, id: string, avatarUrl: string | null): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `UPDATE users SET avatar_url = $2, revision = revision + 1, updated_at = now() WHERE id = $1 RETURNING ${columns}`,
    [id, avatarUrl],
  );
  return rows[0];
}
