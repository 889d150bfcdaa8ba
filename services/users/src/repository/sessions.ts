import type { Queryable } from '@recipes/db';

/** A session (docs/api.md §11.1) as the list of the caller's sessions shows it. */
export interface SessionRecord {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
}

/** Opens a session of `userId` lasting at most `maxDays`, and stores the hash of its first refresh token. */
export async function insertSession(
  db: Queryable,
  session: { id: string; userId: string; userAgent: string | null; seed: Buffer; maxDays: number; tokenHash: Buffer },
): Promise<{ issuedAt: Date }> {
  const { rows } = await db.query<{ issuedAt: Date }>(
    `WITH opened AS (
       INSERT INTO sessions (id, user_id, user_agent, seed, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(days => $5))
       RETURNING id
     )
     INSERT INTO refresh_tokens (token_hash, session_id, generation) SELECT $6, id, 0 FROM opened RETURNING issued_at AS "issuedAt"`,
    [session.id, session.userId, session.userAgent, session.seed, session.maxDays, session.tokenHash],
  );
  return rows[0]!;
}

/**
 * The session a refresh token was given to, locked until the transaction ends, so that the refreshes of
 * one session take turns however many arrive at once; and which generation the token is.
 */
export async function lockSessionOfToken(
  db: Queryable,
  tokenHash: Buffer,
): Promise<{ sessionId: string; presented: number } | undefined> {
  const { rows } = await db.query<{ sessionId: string; presented: number }>(
    `SELECT s.id AS "sessionId", t.generation AS presented
       FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
      WHERE t.token_hash = $1
        FOR UPDATE OF s`,
    [tokenHash],
  );
  return rows[0];
}

/**
 * A locked session as a refresh of its generation `presented` decides on it, read after the lock (so as
 * the last refresh left it).
 */
export interface SessionState {
  id: string;
  userId: string;
  username: string;
  seed: Buffer;
  generation: number;
  /** Ended, past its maximum age (or too near it for one more access token), or idle too long. */
  over: boolean;
  /** Why it ended (`EndReason` of sessions.ts), if it did. */
  endReason: string | null;
  /** When the generation after the presented one was issued (the presented one's first use), if it was. */
  successorIssuedAt: Date | null;
  /** Milliseconds since then. */
  sinceSuccessorMs: number | null;
  refreshesInWindow: number;
  /** Milliseconds since the refresh window began. */
  windowAgeMs: number;
}

export async function readSessionState(
  db: Queryable,
  sessionId: string,
  presented: number,
  idleDays: number,
  tokenTtlSeconds: number,
): Promise<SessionState> {
  // Past its maximum age as soon as a token issued now would outlive it: no access token outlives its session.
  const { rows } = await db.query<SessionState>(
    `SELECT s.id, s.user_id AS "userId", u.username, s.seed, s.generation,
            (s.ended_at IS NOT NULL OR s.expires_at <= now() + make_interval(secs => $4)
             OR s.last_used_at <= now() - make_interval(days => $3)) AS over, s.end_reason AS "endReason",
            n.issued_at AS "successorIssuedAt",
            (extract(epoch FROM clock_timestamp() - n.issued_at) * 1000)::float8 AS "sinceSuccessorMs",
            s.refreshes_in_window AS "refreshesInWindow",
            (extract(epoch FROM clock_timestamp() - s.refresh_window_started_at) * 1000)::float8 AS "windowAgeMs"
       FROM sessions s JOIN users u ON u.id = s.user_id
       LEFT JOIN refresh_tokens n ON n.session_id = s.id AND n.generation = $2 + 1
      WHERE s.id = $1`,
    [sessionId, presented, idleDays, tokenTtlSeconds],
  );
  return rows[0]!;
}

/**
 * Moves a locked session to its next refresh token, counting the refresh in its window (a new one when `newWindow`).
 */
export async function rotateSession(
  db: Queryable,
  sessionId: string,
  generation: number,
  tokenHash: Buffer,
  newWindow: boolean,
): Promise<{ issuedAt: Date }> {
  const { rows } = await db.query<{ issuedAt: Date }>(
    `WITH rotated AS (
       UPDATE sessions SET generation = $2, last_used_at = now(),
              refresh_window_started_at = CASE WHEN $4 THEN now() ELSE refresh_window_started_at END,
              refreshes_in_window = CASE WHEN $4 THEN 1 ELSE refreshes_in_window + 1 END
        WHERE id = $1
        RETURNING id
     )
     INSERT INTO refresh_tokens (token_hash, session_id, generation) SELECT $3, id, $2 FROM rotated RETURNING issued_at AS "issuedAt"`,
    [sessionId, generation, tokenHash, newWindow],
  );
  return rows[0]!;
}

/**
 * Ends the sessions of `userId` that `which` names and that are still going: one (`id`), all but one
 * (`except`), all, or all but the `beyondNewest` most recently used. Their refresh tokens stay with them until
 * the sweep, refused, so that one presented later is told why. Gives the ids of those that ended now.
 */
export async function endSessions(
  db: Queryable,
  userId: string,
  which: { id: string } | { except: string | null } | { beyondNewest: number },
  reason: string,
): Promise<{ ids: string[]; endedAt: Date }> {
  const { rows } = await db.query<{ id: string; endedAt: Date }>(
    `WITH ended AS (
       UPDATE sessions SET ended_at = now(), end_reason = $4
        WHERE user_id = $1 AND ended_at IS NULL
          AND ($2::uuid IS NULL OR id = $2) AND ($3::uuid IS NULL OR id <> $3)
          AND ($5::int IS NULL OR id IN (SELECT id FROM sessions WHERE user_id = $1 AND ended_at IS NULL
                                          ORDER BY last_used_at DESC, id DESC OFFSET $5))
        RETURNING id, ended_at
     )
     SELECT id, ended_at AS "endedAt" FROM ended`,
    [
      userId,
      'id' in which ? which.id : null,
      'except' in which ? which.except : null,
      reason,
      'beyondNewest' in which ? which.beyondNewest : null,
    ],
  );
  return { ids: rows.map((row) => row.id), endedAt: rows[0]?.endedAt ?? new Date() };
}

/** The live sessions of `userId`, most recently used first. */
export async function findLiveSessions(db: Queryable, userId: string, idleDays: number): Promise<SessionRecord[]> {
  const { rows } = await db.query<SessionRecord>(
    `SELECT id, created_at AS "createdAt", last_used_at AS "lastUsedAt", user_agent AS "userAgent"
       FROM sessions
      WHERE user_id = $1 AND ended_at IS NULL AND expires_at > now() AND last_used_at > now() - make_interval(days => $2)
      ORDER BY last_used_at DESC, id DESC`,
    [userId, idleDays],
  );
  return rows;
}

/**
 * Deletes the sessions (and their refresh tokens) over for more than `keepDays`: ended, past their maximum
 * age, or idle for `idleDays` and that many more. Gives how many went.
 */
export async function deleteSessionsOverFor(db: Queryable, keepDays: number, idleDays: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM sessions
      WHERE ended_at < now() - make_interval(days => $1)
         OR expires_at < now() - make_interval(days => $1)
         OR last_used_at < now() - make_interval(days => $1 + $2)`,
    [keepDays, idleDays],
  );
  return rowCount ?? 0;
}
