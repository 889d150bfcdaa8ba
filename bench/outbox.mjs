// The outbox relay's pace: with the collections service stopped, a backlog of `collection.created`
// events (what creating a collection writes) goes into its outbox; then the service starts and the
// backlog is timed until the outbox is empty. The comments service consumes the events meanwhile,
// as it would in production, so the broker routes every message to a real queue; the phase ends once it
// has taken in every one, so that no backlog is left to weigh on the phases after it.

import { until } from './seed.mjs';

const POLL_MS = 50;

const BACKLOG_NAME = 'Backlog board ';
/**
 * Counting the comments service's directory scans it: less often than the outbox, so as not to slow what it waits for.
 */
const CONSUMED_POLL_MS = 1_000;

export async function outboxDrain(system, pools, { events }) {
  const service = system.process('collections');
  await service.kill('SIGTERM');
  await pools.collections.query(
    `INSERT INTO outbox (id, type, payload, created_at)
     SELECT event_id, 'collection.created', jsonb_build_object(
              'id', event_id, 'type', 'collection.created', 'version', 1,
              'occurredAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'producer', 'collections', 'correlationId', 'bench-outbox',
              'data', jsonb_build_object('id', gen_random_uuid(), 'ownerId', p.id, 'name', $2::text || n,
                                         'deleted', false, 'revision', 0,
                                         'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
            now() + n * interval '1 microsecond'
       FROM (SELECT gen_random_uuid() AS event_id, n FROM generate_series(1, $1::int) AS n) AS e
       JOIN bench_people p ON p.k = e.n % 1000`,
    [events, BACKLOG_NAME],
  );
  await pools.collections.query('ANALYZE outbox');
  const count = async () => (await pools.collections.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n;
  const consumedAll = async () =>
    (
      await pools.comments.query('SELECT count(*)::int AS n FROM known_collections WHERE name LIKE $1', [
        `${BACKLOG_NAME}%`,
      ])
    ).rows[0].n >= events;

  const startedAt = performance.now();
  await service.start();
  // The relay starts while the service boots: the rate counts what was left once it was ready.
  const readyAt = performance.now();
  const leftAtReady = await count();
  for (;;) {
    const left = await count();
    const now = performance.now();
    if (left === 0) {
      const drainSeconds = (now - readyAt) / 1000;
      await until('the comments service to consume the backlog', consumedAll, 600_000, CONSUMED_POLL_MS);
      const consumedSeconds = (performance.now() - readyAt) / 1000;
      return {
        events,
        startSeconds: +((readyAt - startedAt) / 1000).toFixed(2),
        leftAtReady,
        drainSeconds: +drainSeconds.toFixed(2),
        totalSeconds: +((now - startedAt) / 1000).toFixed(2),
        eventsPerSecond: Math.round(leftAtReady / drainSeconds),
        consumedSeconds: +consumedSeconds.toFixed(2),
      };
    }
    if (now - startedAt > 300_000)
      throw new Error(`the outbox still holds ${left} of ${events} events after 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
