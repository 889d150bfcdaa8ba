import { assertDeclared, type EventEnvelope } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';

/**
 * Writes events to the outbox in the caller's transaction, so they are published if and only if it commits.
 * One statement for any number of events: the trigger then sends one notification. An event the catalogue
 * does not declare for its producer is refused (UndeclaredEventError) before anything is written.
 */
export async function enqueue(client: Queryable, ...events: EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  for (const event of events) assertDeclared(event);
  await client.query(
    'INSERT INTO outbox (id, type, payload) SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[])',
    [events.map((event) => event.id), events.map((event) => event.type), events.map((event) => JSON.stringify(event))],
  );
}

/**
 * For a statement of the caller's that writes `event` to the outbox itself, alongside its change (one
 * round trip): the event checked as `enqueue` checks it, and its row's id, type and payload, for
 * `INSERT INTO outbox (id, type, payload)`.
 */
export function outboxRow(event: EventEnvelope): [id: string, type: string, payload: string] {
  assertDeclared(event);
  return [event.id, event.type, JSON.stringify(event)];
}
