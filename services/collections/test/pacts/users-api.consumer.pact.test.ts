import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import type { UserSnapshot } from '@recipes/contracts';
import { UserDirectory } from '@recipes/directory';
import { pactNames, pactsDir } from '@recipes/testing/pact';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { collectionsService } from '../../src/service.js';

/**
 * The look-up collections makes of the users service for a user registered a moment ago (a listing's
 * owner, a collection's owner, an author), through the user directory's real fallback, against the Pact
 * mock server.
 */
const { fromProviderState, like } = MatchersV3;
const pact = new PactV4({ consumer: 'collections', provider: pactNames.api('users'), dir: pactsDir, logLevel: 'warn' });
const pool = migratedPool(collectionsService);

describe('users-api look-ups made by collections', () => {
  it('finds a user registered a moment ago, by id', async () => {
    const user: UserSnapshot = {
      id: '0190f5a4-0000-7000-8000-00000000e001',
      username: 'ada',
      avatarUrl: 'https://cdn.example.com/ada.png',
      revision: 0,
    };
    await pact
      .addInteraction()
      .given('a user exists', { username: user.username, avatarUrl: user.avatarUrl })
      .uponReceiving('a look-up of a user by id')
      // The provider's state handler registers the user and returns its `id`, which the path then carries.
      .withRequest('GET', fromProviderState('/internal/users/${id}', `/internal/users/${user.id}`))
      .willRespondWith(200, (response) => response.jsonBody({ user: like(user) }))
      .executeTest(async (server) => {
        const directory = new UserDirectory({ pool, usersUrl: server.url });
        expect(await directory.findById(user.id)).toEqual(user);
      });
  });

  it('hears 404 for a user that does not exist', async () => {
    const missing = '0190f5a4-0000-7000-8000-00000000e0ff';
    await pact
      .addInteraction()
      .uponReceiving('a look-up of a user who does not exist')
      .withRequest('GET', `/internal/users/${missing}`)
      .willRespondWith(404)
      .executeTest(async (server) => {
        const directory = new UserDirectory({ pool, usersUrl: server.url });
        expect(await directory.findById(missing)).toBeUndefined();
      });
  });
});
