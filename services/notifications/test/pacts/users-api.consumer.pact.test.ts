import { MatchersV3 } from '@pact-foundation/pact';
import { newId } from '@recipes/contracts';
import { UserDirectory } from '@recipes/directory';
import { freshHttpPact, pactNames } from '@recipes/testing/pact';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { notifications } from '../../src/notifications.js';
import { log, mentionEvent, type NotificationsHarness, notificationsHarness } from '../support.js';

/**
 * What notifications asks the users service about an actor its read model has not heard of yet (a user
 * who registered and mentioned someone a moment ago): the listing's own code makes the request, through
 * the directory, against Pact's mock of the users service.
 */
const { fromProviderState, integer, like } = MatchersV3;
const pact = freshHttpPact('notifications', pactNames.api('users'));

let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());
// Every listing starts from a read model that knows nobody, so that it has to ask.
beforeEach(() => harness.pool.query('TRUNCATE users, notifications, notification_counts, push_deliveries'));

const page = { limit: 20, offset: 0 };
const everything = { unreadOnly: false };
const actorId = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a81';

/** The recipient's first page, listed with a directory that asks `usersUrl` about unknown actors. */
async function listedWith(usersUrl: string, recipientId: string) {
  return notifications(harness.pool, new UserDirectory({ pool: harness.pool, usersUrl })).list(
    recipientId,
    everything,
    page,
    log,
  );
}

describe('notifications asking users-api', () => {
  it('looks an unknown actor up by id, and shows them', async () => {
    const recipient = { id: newId() };
    await harness.deliver(mentionEvent({ id: actorId }, recipient));
    await pact
      .given('a user exists', { username: 'Pact_Actor', avatarUrl: 'https://cdn.example.com/actor.png' })
      .uponReceiving('a look-up of an actor by id')
      .withRequest({ method: 'GET', path: fromProviderState('/internal/users/${id}', `/internal/users/${actorId}`) })
      .willRespondWith({
        status: 200,
        headers: { 'content-type': like('application/json; charset=utf-8') },
        body: {
          user: {
            id: fromProviderState('${id}', actorId),
            username: like('Pact_Actor'),
            avatarUrl: like('https://cdn.example.com/actor.png'),
            revision: integer(0),
          },
        },
      })
      .executeTest(async (mockServer) => {
        const { data } = await listedWith(mockServer.url, recipient.id);
        expect(data.map((notification) => notification.actor)).toEqual([
          { id: actorId, username: 'Pact_Actor', avatarUrl: 'https://cdn.example.com/actor.png' },
        ]);
      });
  });

  it('learns that an actor id names nobody, and leaves that notification out', async () => {
    const recipient = { id: newId() };
    await harness.deliver(mentionEvent({ id: actorId }, recipient));
    await pact
      .uponReceiving('a look-up of an unknown actor id')
      .withRequest({ method: 'GET', path: `/internal/users/${actorId}` })
      .willRespondWith({ status: 404 })
      .executeTest(async (mockServer) => {
        const listed = await listedWith(mockServer.url, recipient.id);
        expect(listed.data).toEqual([]);
      });
  });
});
