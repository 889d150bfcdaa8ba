import type { Pool, PoolClient } from '@recipes/db';

/** What the outbox trigger raises on a connection that set `outbox.wake` (migrations/002_writer_wake.sql). */
const OUTBOX_WRITTEN = 'outbox written';

/**
 * The session settings of a pool whose relay `wakeOnOutboxCommits` wakes (`createPool`'s `settings`): the
 * trigger tells the writing connection, and notices reach the client (PostgreSQL's default, which a
 * role's setting could lower).
 */
export const WRITER_WAKE_SETTINGS = { 'outbox.wake': 'writer', client_min_messages: 'notice' } as const;

/** What to call when a watched connection of the pool has committed outbox rows: one per relay running on it. */
const wakersOf = new WeakMap<Pool, Set<() => void>>();

/**
 * Calls `wake` each time a connection of `pool` has ended a transaction (or a statement outside one) in
 * which it wrote to the outbox, until the returned function is called. The pool is made with
 * `WRITER_WAKE_SETTINGS`, so its writes send no NOTIFY: PostgreSQL signals every listening backend of
 * the database on each one, and woke five relays where one had work. Its connections are watched from
 * the first call on, which comes before its first query (a connection made earlier wakes no one, and
 * waits for the poll); every other writer still notifies.
 */
export function wakeOnOutboxCommits(pool: Pool, wake: () => void): () => void {
  const wakers = wakersOf.get(pool) ?? watchConnections(pool);
  wakers.add(wake);
  return () => wakers.delete(wake);
}

function watchConnections(pool: Pool): Set<() => void> {
  const wakers = new Set<() => void>();
  pool.on('connect', (client) => watch(client, () => wakers.forEach((wake) => wake())));
  wakersOf.set(pool, wakers);
  return wakers;
}

function watch(client: PoolClient, committed: () => void): void {
  let written = false;
  client.on('notice', (notice) => {
    if (notice.message === OUTBOX_WRITTEN) written = true;
  });
  // ReadyForQuery says 'I' once no transaction is open: the rows are committed, or rolled back (and a
  // relay woken for nothing finds nothing). pg gives the status only on its connection's event.
  client.connection.on('readyForQuery', ({ status }: { status: string }) => {
    if (!written || status !== 'I') return;
    written = false;
    committed();
  });
}
