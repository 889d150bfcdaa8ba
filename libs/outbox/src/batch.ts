import type { EventEnvelope } from '@recipes/contracts';
import { type Pool, withTransactionOpenedBy } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import type { Publisher } from '@recipes/messaging';
import { withTraceparent } from '@recipes/tracing';
import { backoffMs } from './backoff.js';

// Rows are claimed by deleting them, in the batch's transaction: one the broker confirms stays deleted at
// the commit, the others are put back (RESCHEDULE), and all come back if the relay dies before it. SKIP
// LOCKED lets several relays work on the same table: each claims rows the others have not locked.
// The commit does not wait for the WAL to reach the disk (synchronous_commit off, for this transaction
// only): a commit lost in a crash of the server only brings published rows back, to be published again,
// and consumers take an event once however often it comes. One disk flush fewer per batch. The claim
// (`claim_outbox`, migrations/006_outbox_claim.sql, which plans its statement once per connection) goes
// with the transaction's BEGIN in one round trip, so its size is written into the text (an integer).
const claimOf = (batchSize: number) => `SELECT * FROM claim_outbox(${Math.trunc(batchSize)})`;

// A row that failed is put back, to be tried again after its delay ($7, backoffMs of its failures).
const RESCHEDULE = `
  INSERT INTO outbox (id, type, payload, created_at, attempts, last_error, available_at, traceparent)
  SELECT id, type, payload, created_at, attempts + 1, error,
         clock_timestamp() + delay_ms * interval '1 millisecond', traceparent
    FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::timestamptz[], $5::int[], $6::text[], $7::float8[], $8::text[])
      AS failed(id, type, payload, created_at, attempts, error, delay_ms, traceparent)`;

/** How long after being put back a row that had failed `attempts` times before is tried again. */
const rescheduleDelayMs = (attempts: number) => backoffMs(attempts + 1);

interface ClaimedRow {
  id: string;
  type: string;
  payload: EventEnvelope;
  createdAt: string;
  attempts: number;
  /** The trace context the row was written in (migrations/003_outbox_traceparent.sql), or null. */
  traceparent: string | null;
}

export interface BatchSettings {
  pool: Pool;
  publisher: Publisher;
  logger: Logger;
  batchSize: number;
  /** Told, when rows are put back, how soon the first of them may be tried again. */
  onPutBack?: (retryInMs: number) => void;
}

/**
 * Claims, publishes and settles one batch in one transaction, in two round trips when all went out (BEGIN
 * with the claim, then COMMIT): a row the broker confirmed is gone, a row it did not is put back with
 * backoff. Returns how many rows it claimed.
 */
export async function relayBatch({ pool, publisher, logger, batchSize, onPutBack }: BatchSettings): Promise<number> {
  return withTransactionOpenedBy<ClaimedRow, number>(pool, claimOf(batchSize), async (client, rows) => {
    if (rows.length === 0) return 0;
    // All at once: the confirms come back together instead of one round trip per event. Each is sent in
    // the trace its row was written in, which goes on in the consumers.
    const results = await Promise.allSettled(
      rows.map(async (row) =>
        withTraceparent(row.traceparent, () => publisher.publish(row.payload, { traceparent: row.traceparent })),
      ),
    );
    const failed = rows.flatMap((row, index) => {
      const result = results[index]!;
      if (result.status === 'fulfilled') return [];
      return [{ row, error: result.reason instanceof Error ? result.reason.message : String(result.reason) }];
    });
    if (failed.length > 0) {
      await client.query(RESCHEDULE, [
        failed.map(({ row }) => row.id),
        failed.map(({ row }) => row.type),
        failed.map(({ row }) => JSON.stringify(row.payload)),
        failed.map(({ row }) => row.createdAt),
        failed.map(({ row }) => row.attempts),
        failed.map(({ error }) => error),
        failed.map(({ row }) => rescheduleDelayMs(row.attempts)),
        failed.map(({ row }) => row.traceparent),
      ]);
      logger.warn(
        { failed: failed.length, published: rows.length - failed.length, firstError: failed[0]!.error },
        'outbox events not published; retrying later',
      );
      onPutBack?.(Math.min(...failed.map(({ row }) => rescheduleDelayMs(row.attempts))));
    }
    return rows.length;
  });
}
