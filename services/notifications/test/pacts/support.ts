import { asynchronousBodyHandler, MatchersV3, MessageConsumerPact } from '@pact-foundation/pact';
import { eventEnvelopeSchema } from '@recipes/contracts';
import { type eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import type { NotificationsHarness } from '../support.js';

/**
 * The pact in which `producer`'s events reach this service. Use one per test file: each verification
 * writes every interaction it has seen so far over the file, so no stale interaction outlives a run.
 */
export const eventsPact = (producer: string) =>
  new MessageConsumerPact({
    consumer: 'notifications',
    provider: pactNames.events(producer),
    dir: pactsDir,
    pactfileWriteMode: 'overwrite',
  });

/** A message as the broker hands it over, applied by the service's real handlers to its real database. */
export const consumedBy = (harness: NotificationsHarness) =>
  asynchronousBodyHandler(async (body: unknown) => harness.deliver(eventEnvelopeSchema.parse(body)));

/** Timestamps as the contracts write them: ISO 8601 UTC with milliseconds. */
export const isoMillis = (example: string) =>
  MatchersV3.regex('^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$', example);

/**
 * `eventMessage` with an envelope id of the interaction's own: the service would take a second message
 * with the same id for a redelivery and rightly ignore it.
 */
export const deliveredAs = (id: string, message: ReturnType<typeof eventMessage>) => ({
  ...message,
  id: MatchersV3.uuid(id),
});

/**
 * The message `description` of `pact`: `message` as the broker hands it over (JSON), with `id` as its envelope id (see
 * `deliveredAs`).
 */
export const delivery = (
  pact: MessageConsumerPact,
  description: string,
  id: string,
  message: ReturnType<typeof eventMessage>,
) =>
  pact
    .expectsToReceive(description)
    .withContent(deliveredAs(id, message))
    .withMetadata({ contentType: 'application/json' });
