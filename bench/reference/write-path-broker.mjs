// What the floors' processes (bench/reference/write-path.mjs) do with the broker: the outbox relay, in the
// process that writes the outbox, woken by that process's own commits and polling as a fallback; and
// consuming a queue as the services' consumers do (manual acks after the commit, at most 16 unacknowledged).
import { statement } from './common.mjs';

const PREFETCH = 16;
const RELAY_BATCH = 500;
const RELAY_POLL_MS = 1_000;

const pendingEvents = statement(
  'pending-events',
  'SELECT id, type, payload::text AS payload FROM outbox WHERE available_at <= now() ORDER BY created_at, id LIMIT $1',
);
const deletePublished = statement('delete-published', 'DELETE FROM outbox WHERE id = ANY($1::uuid[])');

/**
 * Publishes `pool`'s outbox to `exchange` on the confirm `channel`, oldest first, a batch at a time; a row
 * goes once the broker has confirmed its event. Gives the wake-up to call after a commit that wrote rows.
 */
export function outboxRelay(pool, channel, exchange) {
  let running = false;
  let again = false;
  const publish = (row) =>
    new Promise((resolve, reject) => {
      channel.publish(
        exchange,
        row.type,
        Buffer.from(row.payload),
        { persistent: true, contentType: 'application/json', messageId: row.id, type: row.type },
        (error) => (error ? reject(error) : resolve(row.id)),
      );
    });
  async function relay() {
    // One loop at a time; a wake-up while it runs makes it look once more.
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const { rows } = await pool.query(pendingEvents(RELAY_BATCH));
        if (rows.length === 0) break;
        const confirmed = (await Promise.allSettled(rows.map(publish))).flatMap((result) =>
          result.status === 'fulfilled' ? [result.value] : [],
        );
        if (confirmed.length > 0) await pool.query(deletePublished(confirmed));
        // Unconfirmed rows stay for the poll; a full batch says more may wait.
        if (confirmed.length < rows.length) break;
        if (rows.length === RELAY_BATCH) again = true;
      } while (again);
    } catch {
      // The database or the broker away: the poll tries again.
    } finally {
      running = false;
    }
  }
  setInterval(relay, RELAY_POLL_MS).unref();
  return relay;
}

/**
 * Consumes `queue` on `channel`: `handle(event, message)` runs each event, and the ack follows it (its
 * commit), then what `handle` gave to run after it, if anything. One that fails is delivered again later;
 * the queue's delivery limit dead-letters one that never succeeds.
 */
export async function consumeEvents(channel, queue, handle) {
  await channel.prefetch(PREFETCH);
  await channel.consume(queue, async (message) => {
    if (message === null) return; // the queue deleted as the bench cleans up
    let afterAck;
    try {
      afterAck = await handle(JSON.parse(message.content), message);
    } catch {
      channel.nack(message);
      return;
    }
    channel.ack(message);
    afterAck?.();
  });
}
