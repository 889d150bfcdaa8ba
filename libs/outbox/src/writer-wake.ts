import type { Pool, PoolClient } from '@recipes/db';

/** What the outbox trigger raises on a connection that set `outbox.wake` (migrations/002_writer_wake.sql). */
export const OUTBOX_WRITTEN = 'outbox written';

/**
 * The session settings of a pool whose relay and push sender `wakeOnNoticedCommits` wakes (`createPool`'s `settings`): the
 * trigger tells the writing connection, and notices reach the client (PostgreSQL's default, which a
 * role's setting could lower). Other queues a table feeds (the notifications service's pushes) raise their
 * own notice under the same setting.
 */
export const WRITER_WAKE_SETTINGS = { 'outbox.wake': 'writer', client_min_messages: 'notice' } as const;

/** What to call when a connection of the pool has committed a transaction that raised a notice, by notice. */
const wakersOf = new WeakMap<Pool, Map<string, Set<() => void>>>();

/**
 * Calls `wake` each time a connection of `pool` comes back to the pool after a transaction (or a statement
 * outside one) in which a trigger raised `notice` (the outbox's, `OUTBOX_WRITTEN`, or another table's),
 * until the returned function is called. Our transaction helpers (libs/db) end every transaction before they
 * release its connection, so a release means the rows are committed, or rolled back (and a relay woken for
 * nothing finds nothing). The pool is made with `WRITER_WAKE_SETTINGS`, so its writes send no NOTIFY: a
 * commit that notifies takes a lock the other notifying commits wait for, through their WAL flush, and
 * PostgreSQL signals every listening connection of the database. Measured (bench/micro/outbox-wake.mjs: 8
 * writers each committing one outbox row a transaction, 5 other connections listening, as five relays do):
 * 520 - 740 commits/s notifying, 1,350 - 1,790 with the notice. Its connections are watched from the first
 * call on, which comes before its first query (a connection made earlier wakes no one, and waits for the
 * poll); every other writer still notifies.
 */
export function wakeOnNoticedCommits(pool: Pool, notice: string, wake: () => void): () => void {
  const wakersByNotice = wakersOf.get(pool) ?? watchConnections(pool);
  const wakers = wakersByNotice.get(notice) ?? new Set();
  wakersByNotice.set(notice, wakers);
  wakers.add(wake);
  return () => wakers.delete(wake);
}

function watchConnections(pool: Pool): Map<string, Set<() => void>> {
  const wakersByNotice = new Map<string, Set<() => void>>();
  const noticed = new WeakMap<PoolClient, Set<string>>();
  pool.on('connect', (client) => {
    client.on('notice', ({ message }) => {
      if (message === undefined || !wakersByNotice.has(message)) return;
      const seen = noticed.get(client) ?? new Set();
      noticed.set(client, seen.add(message));
    });
  });
  pool.on('release', (_error, client) => {
    const seen = noticed.get(client);
    if (seen === undefined) return;
    noticed.delete(client);
    for (const message of seen) wakersByNotice.get(message)?.forEach((wake) => wake());
  });
  wakersOf.set(pool, wakersByNotice);
  return wakersByNotice;
}
