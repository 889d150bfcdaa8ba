import { fileURLToPath } from 'node:url';
import { EndedSessions, type SessionEnd } from '@recipes/auth';
import { eventsConsumedBy, userSessionEnded } from '@recipes/contracts';
import type { MigrationSet, Pool, Queryable } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import { type EventHandler, on } from '@recipes/messaging';

/** The tables of the ended sessions a service knows of, in its own schema (every backend service's). */
export const endedSessionsMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../migrations/ended-sessions', import.meta.url)),
  table: 'ended_sessions_migrations',
};

/** How often the ended sessions no token can need any more are forgotten, in memory and in the tables. */
const PRUNE_EVERY_MS = 60_000;
/** How often each process reads what was recorded since its last read (by another instance, say). */
const CATCH_UP_EVERY_MS = 1_000;
/**
 * How far back each catch-up reads again: a row is stamped as it is written and seen once its
 * transaction commits, so one written just before the last read may commit just after it.
 */
const COMMIT_MARGIN_MS = 10_000;

/** Keeps `end` in `db`; again is harmless (the event may come twice, and to the producer's own table too). */
export async function recordSessionEnd(db: Queryable, end: SessionEnd): Promise<void> {
  await db.query(
    `INSERT INTO ended_sessions (session_id, user_id, forget_after, reason) SELECT id, $2, $3, $4 FROM unnest($1::uuid[]) AS id
     ON CONFLICT (session_id) DO UPDATE SET forget_after = greatest(ended_sessions.forget_after, EXCLUDED.forget_after),
                                            reason = coalesce(ended_sessions.reason, EXCLUDED.reason)`,
    [end.sessionIds, end.userId, end.tokensExpireBy, end.reason ?? null],
  );
  if (end.notBefore === null) return;
  await db.query(
    `INSERT INTO sessions_not_before (user_id, not_before, forget_after) VALUES ($1, $2, $3)
     ON CONFLICT (user_id) DO UPDATE SET not_before = greatest(sessions_not_before.not_before, EXCLUDED.not_before),
                                         forget_after = greatest(sessions_not_before.forget_after, EXCLUDED.forget_after),
                                         recorded_at = clock_timestamp()`,
    [end.userId, end.notBefore, end.tokensExpireBy],
  );
}

/**
 * Teaches `store` every ended session kept in `db` that a token could still need, recorded after `since`
 * (all of them without); gives the time of the read, for the next one.
 */
export async function loadEndedSessions(db: Queryable, store: EndedSessions, since?: Date): Promise<Date> {
  const { rows } = await db.query<{
    userId: string;
    sessionId: string | null;
    notBefore: Date | null;
    forgetAfter: Date;
    reason: string | null;
    readAt: Date;
  }>(
    `SELECT user_id AS "userId", session_id AS "sessionId", NULL::timestamptz AS "notBefore", forget_after AS "forgetAfter",
            reason, clock_timestamp() AS "readAt"
       FROM ended_sessions WHERE forget_after > now() AND recorded_at > $1
     UNION ALL
     SELECT user_id, NULL, not_before, forget_after, NULL, clock_timestamp()
       FROM sessions_not_before WHERE forget_after > now() AND recorded_at > $1`,
    [since ?? new Date(0)],
  );
  for (const row of rows) {
    store.learn({
      userId: row.userId,
      sessionIds: row.sessionId === null ? [] : [row.sessionId],
      notBefore: row.notBefore?.toISOString() ?? null,
      tokensExpireBy: row.forgetAfter.toISOString(),
      reason: row.reason,
    });
  }
  return rows[0]?.readAt ?? new Date();
}

/**
 * What every backend service does with `user.session.ended` (docs/api.md §11.1), so that no request asks
 * the users service whether its token's session still lives: a service the catalogue lists as a consumer
 * keeps each end in its tables from its durable queue (so through its restarts, and what was published
 * while it was down waits there for it); every instance hears every end on its own queue and learns it at
 * once, whichever instance took it from the durable queue; and each reads the tables at start, after the
 * broker was away, and every second for what another instance recorded meanwhile.
 */
export function sessionEnds(service: string, pool: Pool, store: EndedSessions, logger: Logger) {
  const consumes = eventsConsumedBy(service).includes(userSessionEnded);
  const durable: EventHandler[] = consumes
    ? [
        on(userSessionEnded, async (end) => {
          await recordSessionEnd(pool, end);
          store.learn(end);
        }),
      ]
    : [];
  const heard: EventHandler[] = [on(userSessionEnded, async (end) => store.learn(end))];
  let readUpTo: Date | undefined;
  const load = async (since?: Date) => {
    const readAt = await loadEndedSessions(pool, store, since);
    readUpTo = new Date(readAt.getTime() - COMMIT_MARGIN_MS);
  };
  const catchUp = () =>
    load(readUpTo).catch((err: unknown) => logger.warn({ err }, 'ended sessions could not be read'));
  const timers: NodeJS.Timeout[] = [];
  return {
    durable,
    heard,
    /** Everything kept, before the first request. */
    load: () => load(),
    /** What was recorded since the last read. */
    catchUp,
    start() {
      timers.push(
        setInterval(() => void catchUp(), CATCH_UP_EVERY_MS),
        setInterval(() => {
          store.prune();
          pool
            .query(
              'WITH a AS (DELETE FROM ended_sessions WHERE forget_after <= now()) DELETE FROM sessions_not_before WHERE forget_after <= now()',
            )
            .catch((err: unknown) => logger.warn({ err }, 'ended sessions could not be pruned'));
        }, PRUNE_EVERY_MS),
      );
      for (const timer of timers) timer.unref();
    },
    stop: () => timers.forEach(clearInterval),
  };
}

export { EndedSessions };
