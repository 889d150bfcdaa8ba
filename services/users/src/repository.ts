import { type ListingRequest, type Queryable, readListing } from '@recipes/db';

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
  const { rows } = await db.query<UserRecord>(`SELECT ${columns} FROM users WHERE id = $1 AND deleted_at IS NULL`, [
    id,
  ]);
  return rows[0];
}

export async function findUserByUsername(db: Queryable, username: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `SELECT ${columns} FROM users WHERE lower(username) = lower($1) AND deleted_at IS NULL`,
    [username],
  );
  return rows[0];
}

export async function findUsersByUsernames(db: Queryable, usernames: string[]): Promise<UserRecord[]> {
  const { rows } = await db.query<UserRecord>(
    `SELECT ${columns} FROM users WHERE lower(username) = ANY(SELECT lower(name) FROM unnest($1::text[]) AS name) AND deleted_at IS NULL`,
    [usernames],
  );
  return rows;
}

/**
 * Swaps the hash for another of the same password, unless it changed meanwhile. The profile is as it was:
 * no revision, no event.
 */
export async function replacePasswordHash(
  db: Queryable,
  id: string,
  current: string,
  replacement: string,
): Promise<void> {
  await db.query('UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2 AND deleted_at IS NULL', [
    id,
    current,
    replacement,
  ]);
}

export async function updateAvatar(
  db: Queryable,
  id: string,
  avatarUrl: string | null,
): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `UPDATE users SET avatar_url = $2, revision = revision + 1, updated_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING ${columns}`,
    [id, avatarUrl],
  );
  return rows[0];
}

/** One user's mute or block of another (docs/api.md §10): the two columns that say since when, if at all. */
export type RelationKind = 'mute' | 'block';
const sinceColumn: Record<RelationKind, string> = { mute: 'muted_at', block: 'blocked_at' };

/** A row of `user_relations`, as the events carry it. */
export interface RelationRecord {
  userId: string;
  targetId: string;
  muted: boolean;
  blocked: boolean;
  revision: number;
  changedAt: Date;
  lastUnblockedAt: Date | null;
}

const relationColumns = `user_id AS "userId", target_id AS "targetId", muted_at IS NOT NULL AS muted, blocked_at IS NOT NULL AS blocked,
  revision, changed_at AS "changedAt", last_unblocked_at AS "lastUnblockedAt"`;

/**
 * Starts `userId`'s mute or block of `targetId`, or ends it (`on` false), growing the pair's revision.
 * Undefined when it was so already: nothing changed, so there is nothing to tell.
 */
export async function setRelation(
  db: Queryable,
  userId: string,
  targetId: string,
  kind: RelationKind,
  on: boolean,
): Promise<RelationRecord | undefined> {
  const since = sinceColumn[kind];
  const { rows } = on
    ? await db.query<RelationRecord>(
        `INSERT INTO user_relations AS r (user_id, target_id, ${since}) VALUES ($1, $2, now())
         ON CONFLICT (user_id, target_id) DO UPDATE SET ${since} = now(), revision = r.revision + 1, changed_at = now()
          WHERE r.${since} IS NULL
         RETURNING ${relationColumns}`,
        [userId, targetId],
      )
    : await db.query<RelationRecord>(
        `UPDATE user_relations SET ${since} = NULL, revision = revision + 1, changed_at = now()
                ${kind === 'block' ? ', last_unblocked_at = now()' : ''}
          WHERE user_id = $1 AND target_id = $2 AND ${since} IS NOT NULL
         RETURNING ${relationColumns}`,
        [userId, targetId],
      );
  return rows[0];
}

/**
 * One page of the users `userId` mutes or blocks, most recent first, by number or after a position, and
 * how many in all: one statement (`readListing`).
 */
export async function findRelatedPage(db: Queryable, userId: string, kind: RelationKind, request: ListingRequest) {
  const since = sinceColumn[kind];
  return readListing<{ id: string; username: string; avatarUrl: string | null }>(
    db,
    {
      count: `SELECT count(*)::int AS total FROM user_relations WHERE user_id = $1 AND ${since} IS NOT NULL`,
      columns: `u.id, u.username, u.avatar_url AS "avatarUrl"`,
      from: `FROM user_relations r JOIN users u ON u.id = r.target_id WHERE r.user_id = $1 AND r.${since} IS NOT NULL`,
      order: { at: `r.${since}`, id: 'r.target_id', idType: 'uuid', direction: 'desc' },
    },
    [userId],
    request,
  );
}

/** Replaces the password hash of `id`. */
export async function setPasswordHash(db: Queryable, id: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1 AND deleted_at IS NULL', [
    id,
    passwordHash,
  ]);
}

/** The users `userId` mutes or blocks, after `after` by id, for their data export (docs/api.md §11.2). */
export async function findRelatedAfter(
  db: Queryable,
  userId: string,
  kind: RelationKind,
  after: string | null,
  limit: number,
) {
  const since = sinceColumn[kind];
  const { rows } = await db.query<{ id: string; username: string; avatarUrl: string | null }>(
    `SELECT u.id, u.username, u.avatar_url AS "avatarUrl" FROM user_relations r JOIN users u ON u.id = r.target_id
      WHERE r.user_id = $1 AND r.${since} IS NOT NULL AND ($2::uuid IS NULL OR r.target_id > $2) ORDER BY r.target_id LIMIT $3`,
    [userId, after, limit],
  );
  return rows;
}
