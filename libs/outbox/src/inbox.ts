import type { EventEnvelope } from '@recipes/contracts';
import { type Pool, type PoolClient, withTransaction } from '@recipes/db';

/** The inbox row, as a CTE `first_delivery`: it has a row only on the event's first delivery. */
const FIRST_DELIVERY = `first_delivery AS (
     INSERT INTO processed_events (event_id, event_type) VALUES ($1::uuid, $2)
     ON CONFLICT (event_id) DO NOTHING RETURNING event_id)`;

/**
 * Runs `effect` for an event at most once: the event id is recorded in `processed_events` in the same
 * transaction as the effect, so both commit or neither does. Returns false for an event already processed
 * (a redelivery), without running the effect. A concurrent redelivery waits on the first one's row lock.
 */
export async function handleOnce(
  pool: Pool,
  event: Pick<EventEnvelope, 'id' | 'type'>,
  effect: (client: PoolClient) => Promise<void>,
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const { rowCount } = await client.query(`WITH ${FIRST_DELIVERY} SELECT event_id FROM first_delivery`, [
      event.id,
      event.type,
    ]);
    if (rowCount === 0) return false;
    await effect(client);
    return true;
  });
}
