import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type App, createApp } from '../src/index.js';

let app: App;
beforeAll(async () => {
  app = await createApp({
    title: 'bodies',
    logger: createLogger({ service: 'test', level: 'silent' }),
    validateResponses: true,
  });
  const echo = async (request: { body: unknown }) => ({ body: request.body ?? 'none' });
  app.post('/optional', { schema: { body: z.object({ upTo: z.string().optional() }).optional() } }, echo);
  app.post('/required', { schema: { body: z.object({ name: z.string() }) } }, echo);
  // Public routes that declare no body, as a favorite or a stream ticket; and one outside the API.
  const done = async () => ({ done: true });
  app.put(
    '/api/things/:id/favorite',
    { schema: { operationId: 'favoriteThing', response: { 200: z.object({ done: z.boolean() }) } } },
    done,
  );
  app.post(
    '/api/tickets',
    { schema: { operationId: 'createTicket', response: { 200: z.object({ done: z.boolean() }) } } },
    done,
  );
  app.post(
    '/api/read-all',
    { schema: { operationId: 'readAll', body: z.object({ upTo: z.string().optional() }).optional() } },
    echo,
  );
  app.get(
    '/api/things/:id',
    { schema: { operationId: 'getThing', response: { 200: z.object({ done: z.boolean() }) } } },
    done,
  );
  app.post('/internal/poke', { schema: { response: { 200: z.object({ done: z.boolean() }) } } }, done);
  await app.ready();
});
afterAll(() => app.close());

const post = (url: string, payload?: string) =>
  app.inject({
    method: 'POST',
    url,
    ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }),
  });

describe('request bodies', () => {
  it('lets a route whose body is optional take a request without one, or with an object', async () => {
    expect((await post('/optional')).json()).toEqual({ body: 'none' });
    expect((await post('/optional', '{}')).json()).toEqual({ body: {} });
    expect((await post('/optional', '{"upTo":"x"}')).json()).toEqual({ body: { upTo: 'x' } });
  });

  it('refuses a JSON null sent as a body, optional or not, and no body where one is required', async () => {
    for (const url of ['/optional', '/required']) {
      const response = await post(url, 'null');
      expect(response.statusCode).toBe(400);
      expect(response.json().errors).toEqual([{ path: 'body', message: 'must be a JSON object' }]);
    }
    expect((await post('/required')).statusCode).toBe(400);
  });
});

describe('public operations that declare no body', () => {
  const send = (method: 'PUT' | 'POST', url: string, payload?: string, chunked = false) =>
    app.inject({
      method,
      url,
      ...(payload === undefined
        ? {}
        : {
            payload,
            headers: { 'content-type': 'application/json', ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) },
          }),
    });

  it('refuses a body sent to one with 400, however empty the object, and takes the request without one', async () => {
    for (const [method, url] of [
      ['PUT', '/api/things/1/favorite'],
      ['POST', '/api/tickets'],
    ] as const) {
      for (const payload of ['{}', '{"favorite":true}', '[]']) {
        const response = await send(method, url, payload);
        expect(response.statusCode, `${method} ${url} ${payload}`).toBe(400);
        expect(response.json().errors).toEqual([{ path: 'body', message: 'this operation takes no body' }]);
      }
      expect((await send(method, url)).json()).toEqual({ done: true });
    }
    const read = await app.inject({
      method: 'GET',
      url: '/api/things/1',
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(read.statusCode, 'a read with a body').toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/things/1' })).json()).toEqual({ done: true });
  });

  it('leaves routes outside the API as they were', async () => {
    expect((await send('POST', '/internal/poke', '{}')).json()).toEqual({ done: true });
  });

  it('declares a body the route takes without one as not required in the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.paths['/api/read-all'].post.requestBody.required).toBe(false);
    expect(document.paths['/api/tickets'].post.requestBody).toBeUndefined();
    expect((await send('POST', '/api/read-all')).json()).toEqual({ body: 'none' });
  });
});
