import { Writable } from 'node:stream';
import { problemSchema } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type App, createApp, notFound, problemResponses } from '../src/index.js';

const logLines: Record<string, unknown>[] = [];
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

let databaseUp = true;
let app: App;

beforeAll(async () => {
  app = await createApp({
    title: 'test service',
    logger: createLogger({ service: 'test', destination }),
    readiness: { database: () => databaseUp, broker: async () => true },
  });
  app.post(
    '/api/things/:id',
    {
      schema: {
        params: z.object({ id: z.uuid() }),
        querystring: z.object({ verbose: z.enum(['true', 'false']).optional() }),
        body: z.object({ name: z.string().min(1), count: z.number().int().optional() }),
        response: { 201: z.object({ id: z.string(), name: z.string() }), ...problemResponses(400, 404) },
      },
    },
    async (request, reply) => {
      request.log.info('creating a thing');
      return reply.code(201).send({ id: request.params.id, name: request.body.name });
    },
  );
  app.get(
    '/api/things/:id',
    {
      schema: {
        operationId: 'getThing',
        security: [],
        params: z.object({ id: z.uuid() }),
        response: { 200: z.object({ id: z.string() }) },
      },
    },
    async (request) => ({ id: request.params.id }),
  );
  app.get('/api/missing', async () => {
    throw notFound('Thing not found');
  });
  app.get('/api/boom', async () => {
    throw new Error('relation "secret_table" does not exist at /srv/app.js:12');
  });
  app.get('/internal/things', async () => ({ ok: true }));
  await app.ready();
});
afterAll(() => app.close());

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

function expectProblem(response: { headers: Record<string, unknown>; json(): unknown }, status: number, code: string) {
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = problemSchema.parse(response.json());
  expect(body).toMatchObject({ type: 'about:blank', status, code });
  expect(body.requestId).toBe(response.headers['x-request-id']);
  return body;
}

describe('createApp', () => {
  it('serves a valid request', async () => {
    const response = await app.inject({ method: 'POST', url: `/api/things/${id}`, payload: { name: 'a' } });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ id, name: 'a' });
  });

  it('describes invalid fields as a validation problem', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}?x=1`,
      payload: { name: '', count: 1.5 },
    });
    expect(response.statusCode).toBe(400);
    const body = expectProblem(response, 400, 'VALIDATION_ERROR');
    expect(body.instance).toBe(`/api/things/${id}`);
    expect(body.errors?.map((e) => e.path).sort()).toEqual(['count', 'name']);
  });

  it('rejects a wrongly typed query parameter', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}?verbose=maybe`,
      payload: { name: 'a' },
    });
    expect(expectProblem(response, 400, 'VALIDATION_ERROR').errors).toEqual([
      { path: 'verbose', message: expect.any(String) },
    ]);
  });

  it('answers a body that is not an object with 400', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      payload: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectProblem(response, 400, 'VALIDATION_ERROR').errors?.[0]?.path).toBe('body');
  });

  it('answers malformed JSON with 400 and no parser internals', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      payload: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    const body = expectProblem(response, 400, 'VALIDATION_ERROR');
    expect(body.detail).toBe('The body is not valid JSON');
  });

  it('answers a body over 64 KiB with 413', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      payload: { name: 'x'.repeat(70_000) },
    });
    expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers a body that is not JSON with 415', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      payload: 'name=a',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a form body with 415 too', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      payload: 'name=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a path parameter over 100 characters with 414 URI_TOO_LONG, as the document declares', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${'a'.repeat(101)}`,
      payload: { name: 'a' },
    });
    expectProblem(response, 414, 'URI_TOO_LONG');
  });

  it('answers an ill-formed path id with 404, not 400', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/things/not-a-uuid', payload: { name: 'a' } });
    expectProblem(response, 404, 'NOT_FOUND');
  });

  it('validates the body and the query before the path id: 400 before 404, and the handler never runs', async () => {
    const before = logLines.filter((line) => line.msg === 'creating a thing').length;
    const badBody = await app.inject({ method: 'POST', url: '/api/things/not-a-uuid', payload: { name: '' } });
    expect(expectProblem(badBody, 400, 'VALIDATION_ERROR').errors).toEqual([expect.objectContaining({ path: 'name' })]);
    expectProblem(await app.inject({ method: 'POST', url: '/api/things/not-a-uuid' }), 400, 'VALIDATION_ERROR');
    const badQuery = await app.inject({
      method: 'POST',
      url: '/api/things/not-a-uuid?verbose=maybe',
      payload: { name: 'a' },
    });
    expectProblem(badQuery, 400, 'VALIDATION_ERROR');
    expect(logLines.filter((line) => line.msg === 'creating a thing').length).toBe(before);
  });

  it('answers a malformed percent-encoding in the URL with 400 problem+json', async () => {
    expectProblem(await app.inject({ method: 'GET', url: '/api/things/%E0%A4%A' }), 400, 'VALIDATION_ERROR');
  });

  it('answers an unknown route with 404 problem+json', async () => {
    expectProblem(await app.inject({ method: 'GET', url: '/api/nothing-here' }), 404, 'NOT_FOUND');
  });

  it('passes a handler’s HttpError through', async () => {
    const body = expectProblem(await app.inject({ method: 'GET', url: '/api/missing' }), 404, 'NOT_FOUND');
    expect(body.detail).toBe('Thing not found');
  });

  it('answers an unexpected error with 500 that leaks nothing, and logs it', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/boom', headers: { 'x-request-id': 'boom-1' } });
    const body = expectProblem(response, 500, 'INTERNAL_ERROR');
    expect(response.body).not.toMatch(/secret_table|srv|stack/);
    expect(body.detail).toBe('An unexpected error occurred');
    expect(logLines.some((line) => line.requestId === 'boom-1' && line.level === 'error')).toBe(true);
  });
});

describe('request ids', () => {
  it('echoes an acceptable x-request-id and logs every line of the request with it', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      payload: { name: 'a' },
      headers: { 'x-request-id': 'req-123' },
    });
    expect(response.headers['x-request-id']).toBe('req-123');
    const lines = logLines.filter((line) => line.requestId === 'req-123');
    // One line for the request itself, as it completes, with what an operator looks for.
    expect(lines.map((line) => line.msg)).toEqual(['creating a thing', 'request completed']);
    expect(lines[1]).toMatchObject({
      req: { method: 'POST', url: `/api/things/${id}` },
      res: { statusCode: response.statusCode },
      responseTime: expect.any(Number),
    });
  });

  it('logs no query value that may be a credential, on any answer, nor puts it in a problem’s instance, nor logs a body', async () => {
    const ticket = 'tIcKeT-never-logged-0123456789';
    const requests = [
      { method: 'POST' as const, url: `/api/things/${id}?ticket=${ticket}`, payload: { name: `body-${ticket}` } },
      { method: 'POST' as const, url: `/api/things/${id}?access_token=${ticket}`, payload: { name: '' } },
      { method: 'GET' as const, url: `/api/missing?token=${ticket}` },
      { method: 'GET' as const, url: `/api/nothing-here?ticket=${ticket}` },
      { method: 'GET' as const, url: `/api/boom?ticket=${ticket}` },
    ];
    for (const [n, request] of requests.entries()) {
      const response = await app.inject({ ...request, headers: { 'x-request-id': `secret-${n}` } });
      if (response.statusCode >= 400)
        expect(response.json().instance).toBe(request.url.slice(0, request.url.indexOf('?')));
    }
    const lines = logLines.filter((line) => String(line.requestId).startsWith('secret-'));
    expect(
      lines.filter((line) => line.msg === 'request completed').map((line) => (line.req as { url: string }).url),
    ).toEqual([
      `/api/things/${id}?ticket=[redacted]`,
      `/api/things/${id}?access_token=[redacted]`,
      '/api/missing?token=[redacted]',
      '/api/nothing-here?ticket=[redacted]',
      '/api/boom?ticket=[redacted]',
    ]);
    expect(JSON.stringify(lines)).not.toContain(ticket);
  });

  it('replaces a missing or unacceptable id with a fresh one', async () => {
    const none = await app.inject({ method: 'GET', url: '/api/missing' });
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const forged = await app.inject({ method: 'GET', url: '/api/missing', headers: { 'x-request-id': 'a\nb' } });
    expect(forged.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('health and docs', () => {
  it('is live, and ready only while every dependency is up', async () => {
    expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'up', broker: 'up' } });
    databaseUp = false;
    const notReady = await app.inject({ method: 'GET', url: '/health/ready' });
    databaseUp = true;
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({ status: 'not ready', checks: { database: 'down', broker: 'up' } });
  });

  it('runs the checks once for any number of probes at once and once a period after, and shows a dependency going down within a period', async () => {
    const periodMs = 300;
    let checks = 0;
    let up = true;
    const probed = await createApp({
      title: 'probed service',
      logger: createLogger({ service: 'test', level: 'silent' }),
      readiness: {
        database: async () => {
          checks += 1;
          await new Promise((resolve) => setImmediate(resolve));
          return up;
        },
      },
      readinessCacheMs: periodMs,
    });
    try {
      const ready = () => probed.inject({ method: 'GET', url: '/health/ready' });
      expect((await Promise.all(Array.from({ length: 50 }, ready))).map((response) => response.statusCode)).toEqual(
        Array(50).fill(200),
      );
      expect(checks).toBe(1);

      up = false;
      const wentDown = Date.now();
      let probes = 0;
      let notReady = await ready();
      for (probes = 1; notReady.statusCode === 200 && Date.now() - wentDown < 5_000; probes += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        notReady = await ready();
      }
      const tookMs = Date.now() - wentDown;
      expect(notReady.json()).toEqual({ status: 'not ready', checks: { database: 'down' } });
      expect(tookMs).toBeLessThan(periodMs + 500);
      // Probed every 10 ms meanwhile, the database was checked once a period.
      expect(probes).toBeGreaterThan(5);
      expect(checks).toBeLessThanOrEqual(1 + Math.ceil(tookMs / periodMs) + 1);
    } finally {
      await probed.close();
    }
  });

  it('documents /api routes only, from their zod schemas', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).sort()).toEqual(['/api/boom', '/api/missing', '/api/things/{id}']);
    const post = document.paths['/api/things/{id}'].post;
    expect(post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    // Its own, and those the framework can answer: a body refused (400, 413, 415), a path id that names
    // nothing (404), an overlong URL (414), a bug (500), a dependency away (503).
    expect(Object.keys(post.responses)).toEqual(['201', '400', '404', '413', '414', '415', '500', '503']);
  });

  it('declares every error as problem+json with the problem schema, described by its code', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    type Operation = {
      responses: Record<string, { description: string; content?: Record<string, { schema: { required: string[] } }> }>;
    };
    const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((item) =>
      Object.values(item),
    );
    const errors = operations.flatMap((operation) =>
      Object.entries(operation.responses).filter(([status]) => Number(status) >= 400),
    );
    expect(errors.length).toBeGreaterThan(10);
    for (const [status, response] of errors) {
      expect(Object.keys(response.content ?? {}), status).toEqual(['application/problem+json']);
      expect(response.content?.['application/problem+json']?.schema.required).toContain('code');
      expect(response.description, status).toMatch(/\(`[A-Z_]+`\)/);
    }
    expect(document.paths['/api/things/{id}'].post.responses['414'].description).toMatch(/URI_TOO_LONG/);
  });

  it('keeps the operationId and security a route gives', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const get = document.paths['/api/things/{id}'].get;
    expect(get).toMatchObject({ operationId: 'getThing', security: [] });
    // No method with a body, no query: none of 413, 415; a body sent all the same is 400 (optional-body.ts).
    expect(Object.keys(get.responses)).toEqual(['200', '400', '404', '414', '500', '503']);
  });

  it('declares 401 on every route where @recipes/auth checks any token sent', async () => {
    const withAuth = await createApp({
      title: 'with auth',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    withAuth.decorate('auth', {});
    withAuth.get('/api/open', { schema: { operationId: 'open', security: [] } }, async () => ({}));
    const document = (await withAuth.inject({ method: 'GET', url: '/openapi.json' })).json();
    await withAuth.close();
    expect(Object.keys(document.paths['/api/open'].get.responses)).toContain('401');
  });
});
