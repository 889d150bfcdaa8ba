import { createEvent, newId, userCreated } from '@recipes/contracts';
import { type App, createApp } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { dispatcher, on } from '@recipes/runtime';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsersClient } from '../src/users-client.js';

/**
 * The id of the request or event that causes a look-up in another service travels with it, so that the
 * owner's log lines of that look-up carry the same id.
 */
const log = createLogger({ service: 'test', level: 'silent' });
let owner: FastifyInstance;
let caller: App;
let users: UsersClient;
/** The x-request-id of every look-up the owner received, in order. */
const seen: Array<string | undefined> = [];

beforeAll(async () => {
  owner = Fastify();
  owner.get('/internal/users/:id', async (request, reply) => {
    seen.push(request.headers['x-request-id'] as string | undefined);
    return reply.code(404).send({ status: 404 });
  });
  users = new UsersClient(await owner.listen({ host: '127.0.0.1', port: 0 }), 1_000);

  caller = await createApp({ title: 'caller', logger: log });
  caller.post('/api/lookups', { schema: { body: z.object({ username: z.string() }) } }, async (request) => {
    // Awaits in between, as real handlers do, before the look-up.
    await new Promise((resolve) => setImmediate(resolve));
    return { found: (await users.find(request.body.username)) !== undefined };
  });
  await caller.ready();
});
afterAll(async () => {
  await caller.close();
  await owner.close();
});

describe('the trail id', () => {
  it('is the request id on a look-up made while handling a request with a body', async () => {
    const ids = ['trail-a', 'trail-b', 'trail-c'];
    seen.length = 0;
    // At once, so that contexts that leaked from one request to another would show.
    const responses = await Promise.all(
      ids.map((id) => caller.inject({ method: 'POST', url: '/api/lookups', headers: { 'x-request-id': id }, payload: { username: id } })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect([...seen].sort()).toEqual(ids);
  });

  it('is a generated request id when the client sent none', async () => {
    seen.length = 0;
    const response = await caller.inject({ method: 'POST', url: '/api/lookups', payload: { username: 'nobody' } });
    expect(seen).toEqual([response.headers['x-request-id']]);
  });

  it('is the correlation id on a look-up made while handling an event', async () => {
    seen.length = 0;
    const handle = dispatcher([on(userCreated, async (data) => void (await users.find(data.username)))]);
    const event = createEvent(userCreated, { id: newId(), username: 'ada', avatarUrl: null, revision: 0 }, { producer: 'users', correlationId: 'corr-42' });
    await handle(event, log);
    expect(seen).toEqual(['corr-42']);
  });

  it('is absent outside any request or event', async () => {
    seen.length = 0;
    await users.find('ada');
    expect(seen).toEqual([undefined]);
  });
});
