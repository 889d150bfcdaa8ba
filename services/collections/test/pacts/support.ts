import { asynchronousBodyHandler, MessageConsumerPact } from '@pact-foundation/pact';
import { type EventDefinition, type EventEnvelope, eventEnvelopeSchema } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { dispatcher, type EventHandler } from '@recipes/messaging';
import { eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import { beforeEach } from 'vitest';

const log = createLogger({ service: 'collections', level: 'silent' });

/**
 * The pact in which `producer`'s events reach collections, each example message handled by `handlers`
 * (a directory's, on `pool`) as the broker would deliver it; returns `receives`, which verifies the
 * message of `definition` with `data` in the provider state `state`. For the top of a test file.
 */
export function eventsConsumer<T extends object>(producer: string, pool: Pool, handlers: EventHandler[]) {
  const pact = new MessageConsumerPact({
    consumer: 'collections',
    provider: pactNames.events(producer),
    dir: pactsDir,
    logLevel: 'warn',
  });
  const dispatch = dispatcher(handlers);
  // Every example message carries the same event id: each would otherwise look like a redelivery of the first.
  beforeEach(async () => {
    await pool.query('DELETE FROM processed_events');
  });
  return (state: string, definition: EventDefinition, data: T) =>
    pact
      .given(state)
      .expectsToReceive(`a ${definition.type} event`)
      .withContent(eventMessage(definition, data))
      .verify(asynchronousBodyHandler(async (body) => dispatch(eventEnvelopeSchema.parse(body) as EventEnvelope, log)));
}
