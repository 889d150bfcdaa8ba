import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type App, createApp } from '../src/index.js';

let app: App;
beforeAll(async () => {
  app = await createApp({ title: 'bodies', logger: createLogger({ service: 'test', level: 'silent' }), validateResponses: true });
  const echo = async (request: { body: unknown }) => ({ body: request.body ?? 'none' });
  app.post('/optional', { schema: { body: z.object({ upTo: z.string().optional() }).optional() } }, echo);
  app.post('/required', { schema: { body: z.object({ name: z.string() }) } }, echo);
  await app.ready();
});
afterAll(() => app.close());

const post = (url: string, payload?: string) =>
  app.inject({ method: 'POST', url, ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }) });

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
