import type { EventEnvelope } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import type { Publisher } from '@recipes/messaging';
import { MAX_BACKOFF_MS } from './backoff.js';

// SKIP LOCKED lets several relays work on the same table: each claims rows the others have not locked.
const CLAIM = `
  SELECT id, payload FROM outbox
   WHERE available_at <= now()
   ORDER BY created_at, id
   LIMIT $1
   FOR UPDATE SKIP LOCKED`;

// A row that failed is kept and tried again later, each time a little later (the same curve as backoffMs).
const RESCHEDULE = `
  UPDATE outbox
     SET attempts = outbox.attempts + 1,
         last_error = failed.error,
         available_at = clock_timestamp() + least($3::float8, 500 * power(2, outbox.attempts)) * interval '1 millisecond'
    FROM unnest($1::uuid[], $2::text[]) AS failed(id, error)
   WHERE outbox.id = failed.id`;

export interface BatchSettings {
  pool: Pool;
  publisher: Publisher;
  logger: Logger;
  batchSize: number;
}

/**
 * Claims, publishes and settles one batch in one transaction: a row the broker confirmed is deleted, a row
 * it did not is rescheduled with backoff. Returns how many rows it claimed.
 */
export async function relayBatch({ pool, publisher, logger, batchSize }: BatchSettings): Promise<number> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; payload: EventEnvelope }>(CLAIM, [batchSize]);
    if (rows.length === 0) return 0;
    // All at once: the confirms come back together instead of one round trip per event.
    const results = await Promise.allSettled(rows.map(async (row) => publisher.publish(row.payload)));
    const published: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    results.forEach((result, index) => {
      const id = rows[index]!.id;
      if (result.status === 'fulfilled') published.push(id);
      else {
        failed.push(id);
        errors.push(result.reason instanceof Error ? result.reason.message : String(result.reason));
      }
    });
    if (published.length > 0) await client.query('DELETE FROM outbox WHERE id = ANY($1::uuid[])', [published]);
    if (failed.length > 0) {
      await client.query(RESCHEDULE, [failed, errors, MAX_BACKOFF_MS]);
      logger.warn({ failed: failed.length, published: published.length, firstError: errors[0] }, 'outbox events not published; retrying later');
    }
    return rows.length;
  });
}
