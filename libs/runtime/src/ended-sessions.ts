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

/** Keeps `end` in `db`; again is harmless (the event may come twice, and to the producer's own table too). */
export async function recordSessionEnd(db: Queryable, end: SessionEnd): Promise<void> {
  await db.query(
    `INSERT INTO ended_sessions (session_id, user_id, forget_after) SELECT id, $2, $3 FROM unnest($1::uuid[]) AS id
     ON CONFLICT (session_id) DO UPDATE SET forget_after = greatest(ended_sessions.forget_after, EXCLUDED.forget_after)`,
    [end.sessionIds, end.userId, end.tokensExpireBy],
  );
  if (end.notBefore === null) return;
  await db.query(
    `INSERT INTO sessions_not_before (user_id, not_before, forget_after) VALUES ($1, $2, $3)
     ON CONFLICT (user_id) DO UPDATE SET not_before = greatest(sessions_not_before.not_before, EXCLUDED.not_before),
                                         forget_after = greatest(sessions_not_before.forget_after, EXCLUDED.forget_after)`,
    [end.userId, end.notBefore, end.tokensExpireBy],
  );
}

/** Teaches `store` every ended session kept in `db` that a token could still need. */
export async function loadEndedSessions(db: Queryable, store: EndedSessions): Promise<void> {
  const [sessions, notBefore] = await Promise.all([
    db.query<{ userId: string; sessionId: string; forgetAfter: Date }>(
      `SELECT user_id AS "userId", session_id AS "sessionId", forget_after AS "forgetAfter" FROM ended_sessions WHERE forget_after > now()`,
    ),
    db.query<{ userId: string; notBefore: Date; forgetAfter: Date }>(
      `SELECT user_id AS "userId", not_before AS "notBefore", forget_after AS "forgetAfter" FROM sessions_not_before WHERE forget_after > now()`,
    ),
  ]);
  for (const row of sessions.rows) store.learn({ userId: row.userId, sessionIds: [row.sessionId], notBefore: null, tokensExpireBy: row.forgetAfter.toISOString() });
  for (const row of notBefore.rows) {
    store.learn({ userId: row.userId, sessionIds: [], notBefore: row.notBefore.toISOString(), tokensExpireBy: row.forgetAfter.toISOString() });
  }
}

/**
 * What every backend service does with `user.session.ended` (docs/api.md §11.1), so that no request asks
 * the users service whether its token's session still lives: a service the catalogue lists as a consumer
 * keeps each end in its tables from its durable queue (so through its restarts, and what was published
 * while it was down waits there for it); and every instance hears every end on its own queue and learns
 * it at once, whichever instance took it from the durable queue. At start and after the broker was away,
 * an instance reads the tables again.
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
  const reload = () => loadEndedSessions(pool, store).catch((err: unknown) => logger.warn({ err }, 'ended sessions could not be read again'));
  let pruner: NodeJS.Timeout | undefined;
  return {
    durable,
    heard,
    reload,
    load: () => loadEndedSessions(pool, store),
    startPruning() {
      pruner = setInterval(() => {
        store.prune();
        pool
          .query('WITH a AS (DELETE FROM ended_sessions WHERE forget_after <= now()) DELETE FROM sessions_not_before WHERE forget_after <= now()')
          .catch((err: unknown) => logger.warn({ err }, 'ended sessions could not be pruned'));
      }, PRUNE_EVERY_MS);
      pruner.unref();
    },
    stopPruning: () => clearInterval(pruner),
  };
}

export { EndedSessions };
