import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type App, createApp } from '../src/index.js';

let app: App;
beforeAll(async () => {
  app = await createApp({
    title: 'location',
    logger: createLogger({ service: 'test', level: 'silent' }),
    validateResponses: true,
  });
  const thing = z.object({ thing: z.object({ id: z.string() }) });
  app.post(
    '/api/things',
    {
      config: { location: ({ thing: created }) => `/api/things/${created.id}` },
      schema: { response: { 200: thing, 201: thing } },
    },
    async (request, reply) =>
      reply.code((request.query as { again?: string }).again ? 200 : 201).send({ thing: { id: 'abc' } }),
  );
  app.post('/api/unplaced', { schema: { response: { 201: thing } } }, async (_request, reply) =>
    reply.code(201).send({ thing: { id: 'x' } }),
  );
  // As libs/idempotency replays a stored answer: a body already serialized.
  app.post(
    '/api/replayed',
    { config: { location: ({ thing: created }) => `/api/things/${created.id}` } },
    async (_request, reply) => reply.code(201).type('application/json').send('{"thing":{"id":"def"}}'),
  );
  await app.ready();
});
afterAll(() => app.close());

describe('the Location of a created resource', () => {
  it('is sent with a 201, from the route’s config and the answer, replayed answers included', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/things' })).headers.location).toBe('/api/things/abc');
    expect((await app.inject({ method: 'POST', url: '/api/replayed' })).headers.location).toBe('/api/things/def');
  });

  it('is not sent with another status, nor by a route that says none', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/things?again=1' })).headers.location).toBeUndefined();
    expect((await app.inject({ method: 'POST', url: '/api/unplaced' })).headers.location).toBeUndefined();
  });
});
