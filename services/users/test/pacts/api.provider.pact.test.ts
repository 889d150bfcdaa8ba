import { Verifier } from '@pact-foundation/pact';
import { pactNames, pactsForProvider } from '@recipes/testing/pact';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsersHarness, usersHarness } from '../support.js';

/** The users service's internal API, verified against every consumer's pact from this run. */
const provider = pactNames.api('users');
const pactUrls = pactsForProvider(provider);

let harness: UsersHarness;
let baseUrl: string;
beforeAll(async () => {
  harness = await usersHarness({ REGISTER_LIMIT_PER_ADDRESS: '100000' });
  baseUrl = await internalServerOf(harness.app).listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => harness.close());

async function register(username: string, avatarUrl: string | null): Promise<{ id: string }> {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username, password: 'pact password', avatarUrl },
  });
  expect(response.statusCode).toBe(201);
  return response.json().user;
}

describe('users-api', () => {
  it.skipIf(pactUrls.length === 0)('does what every consumer’s pact expects', async () => {
    await new Verifier({
      provider,
      providerBaseUrl: baseUrl,
      pactUrls,
      logLevel: 'warn',
      // Each interaction starts with no users; its states create the ones it needs.
      // CASCADE: the mutes and blocks between users (user_relations) go with them.
      beforeEach: () => harness.pool.query('TRUNCATE users CASCADE'),
      stateHandlers: {
        // Returns the id, for requests whose path names the user by it.
        'a user exists': async (params: unknown) => {
          const { username, avatarUrl = null } = params as { username: string; avatarUrl?: string | null };
          const { id } = await register(username, avatarUrl);
          return { id };
        },
      },
    }).verifyProvider();
  });
});
