import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { backendEnv, env, tokenEnv } from '@recipes/config';
import { createEvent, newId, userCreated } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { dispatcher, on } from '@recipes/messaging';
import { type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { stubUsersService, type UsersServiceStub } from '@recipes/testing/stubs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsersClient } from '../src/users-client.js';

/**
 * The id of the request or event that causes a look-up in another service travels with it, so that the
 * owner's log lines of that look-up carry the same id.
 */
const log = createLogger({ service: 'test', level: 'silent' });
/** The owner of the users; each look-up it received is in its `requests`, x-request-id included. */
let owner: UsersServiceStub;
let users: UsersClient;
/** A tiny service that looks users up while handling a request, composed as every service is. */
let caller: ServiceHarness<z.infer<typeof configSchema>, { users: UsersClient }>;
const seen = () => owner.requests.map((request) => request.requestId);

const configSchema = z.object({ ...backendEnv, ...tokenEnv, USERS_INTERNAL_URL: env.url('http://127.0.0.1:1') });

beforeAll(async () => {
  owner = await stubUsersService();
  users = new UsersClient(owner.url, 1_000);
  caller = await serviceHarness(
    {
      name: 'caller',
      description: 'Looks users up while handling a request',
      configSchema,
      // It has no tables of its own.
      migrations: pathToFileURL(mkdtempSync(join(tmpdir(), 'trail-migrations-'))),
      publishes: [],
      parts: ({ config }) => ({ users: new UsersClient(config.USERS_INTERNAL_URL, 1_000) }),
      async routes(app, parts) {
        app.post('/api/lookups', { schema: { body: z.object({ username: z.string() }) } }, async (request) => {
          // Awaits in between, as real handlers do, before the look-up.
          await new Promise((resolve) => setImmediate(resolve));
          return { found: (await parts.users.find(request.body.username)) !== undefined };
        });
      },
    },
    { env: { USERS_INTERNAL_URL: owner.url }, neighbours: [owner] },
  );
});
afterAll(async () => {
  await caller?.close();
});

describe('the trail id', () => {
  it('is the request id on a look-up made while handling a request with a body', async () => {
    const ids = ['trail-a', 'trail-b', 'trail-c'];
    owner.requests.length = 0;
    // At once, so that contexts that leaked from one request to another would show.
    const responses = await Promise.all(
      ids.map((id) =>
        caller.app.inject({
          method: 'POST',
          url: '/api/lookups',
          headers: { 'x-request-id': id },
          payload: { username: id },
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(seen().sort()).toEqual(ids);
  });

  it('is a generated request id when the client sent none', async () => {
    owner.requests.length = 0;
    const response = await caller.app.inject({ method: 'POST', url: '/api/lookups', payload: { username: 'nobody' } });
    expect(seen()).toEqual([response.headers['x-request-id']]);
  });

  it('is the correlation id on a look-up made while handling an event', async () => {
    owner.requests.length = 0;
    const handle = dispatcher([on(userCreated, async (data) => void (await users.find(data.username)))]);
    const event = createEvent(
      userCreated,
      { id: newId(), username: 'ada', avatarUrl: null, revision: 0 },
      { producer: 'users', correlationId: 'corr-42' },
    );
    await handle(event, log);
    expect(seen()).toEqual(['corr-42']);
  });

  it('is absent outside any request or event', async () => {
    owner.requests.length = 0;
    await users.find('ada');
    expect(seen()).toEqual([undefined]);
  });
});
