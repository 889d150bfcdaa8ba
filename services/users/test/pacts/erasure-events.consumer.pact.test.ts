import { asynchronousBodyHandler, MessageConsumerPact } from '@pact-foundation/pact';
import { ERASING_SERVICES, type EventEnvelope, eventEnvelopeSchema, userErasedEvents } from '@recipes/contracts';
import { eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type Registered, type UsersHarness, usersHarness } from '../support.js';

/**
 * What the users service needs of each erasing service's confirmation (docs/api.md §11.2): whose part is
 * gone, so that the deletion is complete once every one has confirmed. Each message goes to this service's
 * own handlers on a real database.
 */
let harness: UsersHarness;
let leaver: Registered;
beforeAll(async () => {
  harness = await usersHarness();
  leaver = await harness.registered('pact_leaver');
  const deleted = await harness.app.inject({
    method: 'DELETE',
    url: '/api/users/me',
    payload: { password: 'password123' },
    headers: bearer(leaver.token),
  });
  expect(deleted.statusCode).toBe(202);
});
afterAll(() => harness.close());

describe('users consuming each service’s erasure confirmation', () => {
  it.each(ERASING_SERVICES.map((service, index) => ({ service, index })))(
    '$service.user.erased counts toward the deletion',
    async ({ service, index }) => {
      const definition = userErasedEvents[service];
      const pact = new MessageConsumerPact({
        consumer: 'users',
        provider: pactNames.events(service),
        dir: pactsDir,
        pactfileWriteMode: 'overwrite',
      });
      await pact
        .expectsToReceive(definition.type)
        .withContent(
          eventMessage(definition, { userId: leaver.user.id, service, erasedAt: '2026-11-22T10:00:00.000Z' }),
        )
        .verify(
          asynchronousBodyHandler(async (body) => {
            // Every example carries the same event id: forget it, or the next would count as a redelivery.
            await harness.pool.query('DELETE FROM processed_events');
            await harness.deliver(eventEnvelopeSchema.parse(body) as EventEnvelope);
            const state = await harness.parts.deletions.find(leaver.user.id);
            expect(state?.erasedBy).toEqual([...ERASING_SERVICES.slice(0, index + 1)].sort());
            // Complete once the last service has confirmed, and not before.
            expect(state?.completedAt !== null).toBe(index === ERASING_SERVICES.length - 1);
          }),
        );
    },
  );
});
