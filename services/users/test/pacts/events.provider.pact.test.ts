import { MessageProviderPact } from '@pact-foundation/pact';
import {
  eventCatalogue,
  userBlocked,
  userCreated,
  userDeleted,
  userMuted,
  userSessionEnded,
  userUnblocked,
  userUnmuted,
  userUpdated,
} from '@recipes/contracts';
import { messageProvidersByType, missingConsumerPacts, pactNames, pactsForProvider } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsersHarness, usersHarness } from '../support.js';

/**
 * The users service's events, verified against every consumer's pact from this run. Each message is
 * produced by the real app (a registration, an avatar change) and read back from the outbox, exactly
 * as the relay would publish it, for the event type the pact's message carries. Whether the user has
 * an avatar follows the consumer's example.
 */
const provider = pactNames.events('users');
const pactUrls = pactsForProvider(provider);

let harness: UsersHarness;
beforeAll(async () => {
  harness = await usersHarness({ REGISTER_LIMIT_PER_ADDRESS: '100000' });
});
afterAll(() => harness.close());

let registrations = 0;

const exampleAvatar = (example: unknown) =>
  (example as { avatarUrl?: unknown } | undefined)?.avatarUrl === null ? null : 'https://cdn.example.com/a.png';

async function register(avatarUrl: string | null = null): Promise<{ id: string; token: string }> {
  registrations += 1;
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username: `provider_${registrations}`, password: 'pact password', avatarUrl },
  });
  expect(response.statusCode).toBe(201);
  const { user, token } = response.json();
  return { id: user.id, token };
}

/** The latest event of `type` about user `id`, as it waits in the outbox. */
async function fromOutbox(type: string, id: string): Promise<unknown> {
  const { rows } = await harness.pool.query(
    "SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->>'id' = $2 ORDER BY created_at DESC LIMIT 1",
    [type, id],
  );
  expect(rows).toHaveLength(1);
  return rows[0].payload;
}

/**
 * The latest event of `type` about a pair of new users, after the first's `steps` (a mute or block of the
 * second started or ended, through the API), as it waits in the outbox.
 */
async function relationEvent(type: string, steps: ['PUT' | 'DELETE', 'mute' | 'block'][]): Promise<unknown> {
  const [user, target] = [await register(), await register()];
  for (const [method, kind] of steps) {
    const response = await harness.app.inject({
      method,
      url: `/api/users/${target.id}/${kind}`,
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(response.statusCode).toBe(200);
  }
  const { rows } = await harness.pool.query(
    "SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->>'userId' = $2 ORDER BY created_at DESC LIMIT 1",
    [type, user.id],
  );
  expect(rows).toHaveLength(1);
  return rows[0].payload;
}

describe('users-events', () => {
  it.skipIf(pactUrls.length === 0)('produces what every consumer’s pact expects', async () => {
    await new MessageProviderPact({
      provider,
      pactUrls,
      logLevel: 'warn',
      messageProviders: messageProvidersByType(pactUrls, {
        [userCreated.type]: async (example) =>
          fromOutbox(userCreated.type, (await register(exampleAvatar(example))).id),
        [userUpdated.type]: async (example) => {
          const { id, token } = await register();
          const changed = await harness.app.inject({
            method: 'PATCH',
            url: '/api/users/me',
            payload: { avatarUrl: exampleAvatar(example) },
            headers: { authorization: `Bearer ${token}` },
          });
          expect(changed.statusCode).toBe(200);
          return fromOutbox(userUpdated.type, id);
        },
        [userMuted.type]: () => relationEvent(userMuted.type, [['PUT', 'mute']]),
        [userUnmuted.type]: () =>
          relationEvent(userUnmuted.type, [
            ['PUT', 'mute'],
            ['DELETE', 'mute'],
          ]),
        [userBlocked.type]: () => relationEvent(userBlocked.type, [['PUT', 'block']]),
        [userUnblocked.type]: () =>
          relationEvent(userUnblocked.type, [
            ['PUT', 'block'],
            ['DELETE', 'block'],
          ]),
        [userSessionEnded.type]: async () => {
          const { id, token } = await register();
          const loggedOut = await harness.app.inject({
            method: 'POST',
            url: '/api/auth/logout',
            headers: { authorization: `Bearer ${token}` },
          });
          expect(loggedOut.statusCode).toBe(200);
          const { rows } = await harness.pool.query(
            "SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->>'userId' = $2 ORDER BY created_at DESC LIMIT 1",
            [userSessionEnded.type, id],
          );
          expect(rows).toHaveLength(1);
          return rows[0].payload;
        },
        [userDeleted.type]: async () => {
          const { id, token } = await register();
          const deleted = await harness.app.inject({
            method: 'DELETE',
            url: '/api/users/me',
            payload: { password: 'pact password' },
            headers: { authorization: `Bearer ${token}` },
          });
          expect(deleted.statusCode).toBe(202);
          const { rows } = await harness.pool.query(
            "SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->>'userId' = $2",
            [userDeleted.type, id],
          );
          expect(rows).toHaveLength(1);
          return rows[0].payload;
        },
      }),
    }).verify();
  });

  it.skipIf(pactUrls.length === 0)('has a pact from every consumer the catalogue lists for its session ends', () => {
    expect(
      missingConsumerPacts(eventCatalogue, 'users', pactUrls).filter(
        (missing) => missing.endsWith(userSessionEnded.type) || missing.endsWith(userDeleted.type),
      ),
    ).toEqual([]);
  });
});
