import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergedDocument } from '../scripts/openapi.mjs';
import proxyPlugin from '../services/gateway/src/plugins/proxy.js';
import { Upstreams } from '../services/gateway/src/upstreams.js';
import { mentionEvent } from './faults/support.js';
import {
  eventChecker,
  type OpenApiDocument,
  openApiChecker,
  parseRecords,
  type RecordedResponse,
} from './support/conformance.js';

/**
 * The conformance checks the system tests run on their traffic (test/support/system.ts), shown to report
 * each kind of defect: on a small document, on the published one, on responses the gateway really recorded,
 * and on events.
 */
const silent = createLogger({ service: 'test', level: 'silent' });
const problemRef = { $ref: '#/components/schemas/Problem' };
const problemContent = { 'application/problem+json': { schema: problemRef } };

/** A document of two operations, as the gateway's merge writes them. */
const small: OpenApiDocument = {
  paths: {
    '/api/users/me': {
      get: {
        operationId: 'getMyProfile',
        responses: {
          200: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    user: {
                      type: 'object',
                      properties: { id: { type: 'string', format: 'uuid' }, username: { type: 'string' } },
                      required: ['id', 'username'],
                    },
                  },
                  required: ['user'],
                  additionalProperties: false,
                },
              },
            },
          },
          401: { content: problemContent },
        },
      },
    },
    '/api/users/{id}': { get: { operationId: 'getUser', responses: { 404: { content: problemContent } } } },
  },
  components: {
    schemas: {
      Problem: {
        type: 'object',
        properties: { status: { type: 'integer' }, code: { type: 'string' }, detail: { type: 'string' } },
        required: ['status', 'code', 'detail'],
      },
    },
  },
};

const user = { id: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b', username: 'ada' };
const problem = (status: number, code: string) => JSON.stringify({ status, code, detail: 'x' });
const response = (overrides: Partial<RecordedResponse>): RecordedResponse => ({
  method: 'GET',
  url: '/api/users/me',
  path: '/api/users/me',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify({ user }),
  complete: true,
  ...overrides,
});

describe('the OpenAPI check of a recorded response', () => {
  const { check } = openApiChecker(small);

  it('passes what the document describes', () => {
    expect(check(response({}))).toEqual([]);
    expect(
      check(
        response({
          status: 401,
          contentType: 'application/problem+json; charset=utf-8',
          body: problem(401, 'UNAUTHORIZED'),
        }),
      ),
    ).toEqual([]);
    // The most literal template wins: /api/users/me is not getUser.
    expect(check(response({ method: 'HEAD', body: '' }))).toEqual([]);
    // No operation: an error as problem details is all the document promises.
    expect(
      check(
        response({
          url: '/api/nothing',
          path: '/api/nothing',
          status: 404,
          contentType: 'application/problem+json',
          body: problem(404, 'NOT_FOUND'),
        }),
      ),
    ).toEqual([]);
  });

  it('reports a status the operation does not declare', () => {
    expect(
      check(response({ status: 418, contentType: 'application/problem+json', body: problem(418, 'BAD_REQUEST') })),
    ).toEqual(['getMyProfile does not declare status 418']);
  });

  it('reports an error sent as application/json instead of problem+json', () => {
    expect(check(response({ status: 401, body: problem(401, 'UNAUTHORIZED') }))).toEqual([
      'getMyProfile declares application/problem+json for 401, not application/json',
    ]);
  });

  it('reports a body its schema refuses', () => {
    expect(
      check(response({ body: JSON.stringify({ user: { id: 'not-a-uuid', username: 'ada' }, extra: 1 }) })),
    ).toEqual([
      'getMyProfile 200: body must NOT have additional properties (#/additionalProperties)',
      'getMyProfile 200: body/user/id must match format "uuid" (#/properties/user/properties/id/format)',
    ]);
    expect(
      check(
        response({
          url: '/api/users/x',
          path: '/api/users/x',
          status: 404,
          contentType: 'application/problem+json',
          body: '{"status":404}',
        }),
      ),
    ).toEqual([
      "getUser 404: body must have required property 'code' (components#/$defs/Problem/required)",
      "getUser 404: body must have required property 'detail' (components#/$defs/Problem/required)",
    ]);
  });

  it('reports a success, or a non-problem, where no operation is described', () => {
    expect(check(response({ url: '/api/nothing', path: '/api/nothing' }))).toEqual([
      '200 for a request no operation describes',
    ]);
    expect(check(response({ method: 'DELETE', status: 404, body: '{}' }))).toEqual([
      '404 is application/json, not application/problem+json',
    ]);
  });
});

describe('the OpenAPI check against the published document', () => {
  let checker: ReturnType<typeof openApiChecker>;
  beforeAll(async () => {
    checker = openApiChecker((await mergedDocument()) as unknown as OpenApiDocument);
  }, 60_000);

  const login = (overrides: Partial<RecordedResponse>) =>
    response({
      method: 'POST',
      url: '/api/auth/login',
      path: '/api/auth/login',
      contentType: 'application/problem+json',
      ...overrides,
    });

  it('passes the answers it declares, the gateway’s included', () => {
    const body = JSON.stringify({
      type: 'about:blank',
      title: 'x',
      status: 401,
      code: 'UNAUTHORIZED',
      detail: 'x',
      instance: '/api/auth/login',
      requestId: 'r',
    });
    expect(checker.check(login({ status: 401, body }))).toEqual([]);
    for (const [status, code] of [
      [414, 'URI_TOO_LONG'],
      [429, 'RATE_LIMITED'],
      [504, 'UPSTREAM_TIMEOUT'],
    ] as const) {
      expect(
        checker.check(login({ status, body: body.replace('401', String(status)).replace('UNAUTHORIZED', code) })),
      ).toEqual([]);
    }
  });

  it('reports the defects the issue found by traffic: errors as application/json, and an undeclared status', () => {
    const body = JSON.stringify({
      type: 'about:blank',
      title: 'x',
      status: 401,
      code: 'UNAUTHORIZED',
      detail: 'x',
      instance: '/api/auth/login',
      requestId: 'r',
    });
    expect(checker.check(login({ status: 401, contentType: 'application/json', body }))).toEqual([
      expect.stringMatching(/^login declares application\/problem\+json for 401, not application\/json$/),
    ]);
    expect(checker.check(login({ status: 418, body }))).toEqual(['login does not declare status 418']);
    expect(checker.check(login({ status: 401, body: '{"error":"Unauthorized"}' })).length).toBeGreaterThan(0);
  });
});

describe('the gateway’s record of its responses', () => {
  let upstream: App;
  let gateway: App;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    upstream = await createApp({ title: 'users', logger: silent });
    upstream.get('/api/users/me', async () => ({ user }));
    // A deliberate break: an error that is not problem+json, with a status nobody declared.
    upstream.get('/api/users/:id', async (_request, reply) =>
      reply.code(418).type('application/json').send({ error: 'teapot' }),
    );
    await upstream.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(upstream.server.address() as { port: number }).port}`;

    dir = mkdtempSync(join(tmpdir(), 'recipes-record-'));
    file = join(dir, 'responses.ndjson');
    gateway = await createApp({ title: 'gateway', logger: silent });
    const upstreams = new Upstreams(
      { users: [url], content: [url], comments: [url], collections: [url], notifications: [url] },
      { timeoutMs: 2_000 },
    );
    gateway.addHook('onClose', () => upstreams.close());
    await gateway.register(proxyPlugin, { upstreams, recordResponsesTo: file });
    await gateway.ready();
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records each response as sent, proxied or the gateway’s own, and the check finds the broken one', async () => {
    const me = await gateway.inject({ method: 'GET', url: '/api/users/me?x=1' });
    const teapot = await gateway.inject({ method: 'GET', url: '/api/users/ada' });
    const unknown = await gateway.inject({ method: 'GET', url: '/api/users/a%2Fb' });
    expect([me.statusCode, teapot.statusCode, unknown.statusCode]).toEqual([200, 418, 404]);

    const records = parseRecords(readFileSync(file, 'utf8'));
    expect(records).toEqual([
      expect.objectContaining({
        method: 'GET',
        url: '/api/users/me?x=1',
        path: '/api/users/me',
        status: 200,
        body: me.body,
        complete: true,
      }),
      expect.objectContaining({
        url: '/api/users/ada',
        path: '/api/users/ada',
        status: 418,
        contentType: 'application/json; charset=utf-8',
        body: teapot.body,
      }),
      expect.objectContaining({
        url: '/api/users/a%2Fb',
        status: 404,
        contentType: expect.stringMatching(/^application\/problem\+json/),
      }),
    ]);
    expect(records[2]).not.toHaveProperty('path');

    expect(openApiChecker(small).checkAll(records)).toEqual([
      'GET /api/users/ada → 418: getUser does not declare status 418',
    ]);
  });
});

describe('the event check', () => {
  const check = eventChecker();
  const mention = () => mentionEvent();

  it('passes an event as its catalogue entry describes it', () => {
    expect(check({ routingKey: 'comment.mention.created', content: JSON.stringify(mention()) })).toEqual([]);
  });

  it('reports a payload its schema refuses, an unknown type or version, a wrong producer and a wrong routing key', () => {
    const event = mention();
    const broken = { ...event, data: { ...(event.data as object), mentionedUserId: 'not-a-user-id' } };
    const refused = check({ routingKey: 'comment.mention.created', content: JSON.stringify(broken) });
    expect(refused).toContain(
      `${event.id} (comment.mention.created v1): payload/data/mentionedUserId must match format "uuid"`,
    );
    expect(
      refused.every((mismatch) =>
        mismatch.startsWith(`${event.id} (comment.mention.created v1): payload/data/mentionedUserId `),
      ),
    ).toBe(true);
    expect(check({ routingKey: 'comment.mention.created', content: JSON.stringify({ ...event, version: 9 }) })).toEqual(
      [`${event.id} (comment.mention.created v9): not in the event catalogue`],
    );
    expect(
      check({ routingKey: 'comment.mention.created', content: JSON.stringify({ ...event, producer: 'content' }) }),
    ).toEqual([`${event.id} (comment.mention.created v1): payload/producer must be equal to constant`]);
    expect(check({ routingKey: 'comment.created', content: JSON.stringify(event) })).toEqual([
      `${event.id} (comment.mention.created v1): routed as comment.created`,
    ]);
    expect(check({ routingKey: 'x', content: 'not json' })).toEqual(['x: the body is not JSON']);
  });
});
