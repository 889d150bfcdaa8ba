import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { type App, NOT_TAKEN_HEADER, stopTaking } from '@recipes/http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from './support/problems.js';
import { addressOf, type Echoed, startGateway, startUpstream, type Upstream, unusedUrl } from './support/servers.js';

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

let users1: Upstream;
let users2: Upstream;
let content: Upstream;
let comments: Upstream;
let collections: Upstream;
let notifications: Upstream;
let all: Upstream[];
let env: Record<string, string>;
let gateway: App;
let base: string;

beforeAll(async () => {
  [users1, users2, content, comments, collections, notifications] = await Promise.all([
    startUpstream('users-1'),
    startUpstream('users-2'),
    startUpstream('content'),
    startUpstream('comments'),
    startUpstream('collections'),
    startUpstream('notifications'),
  ]);
  all = [users1, users2, content, comments, collections, notifications];
  env = {
    USERS_URL: `${users1.url},${users2.url}`,
    CONTENT_URL: content.url,
    COMMENTS_URL: comments.url,
    COLLECTIONS_URL: collections.url,
    NOTIFICATIONS_URL: notifications.url,
    RATE_LIMIT_ENABLED: 'false',
  };
  gateway = await startGateway(env, { listen: true });
  base = addressOf(gateway);
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all(all.map((upstream) => upstream.close()));
});

const totalHits = () => all.reduce((sum, upstream) => sum + upstream.hits, 0);

describe('routing', () => {
  it.each([
    ['GET', `/api/users/${id}?fields=a`, 'users'],
    ['POST', '/api/auth/login', 'users'],
    ['GET', `/api/users/${id}/recipes?page=2&limit=5`, 'content'],
    ['PUT', `/api/recipes/${id}/favorite`, 'content'],
    ['GET', `/api/posts/${id}/comments?page=1`, 'comments'],
    ['GET', `/api/users/${id}/saved-items?standalone=true&content_type=post`, 'collections'],
    ['DELETE', `/api/collections/${id}/items`, 'collections'],
    ['PATCH', '/api/notifications/read', 'notifications'],
    ['GET', '/api/notifications/unread-count', 'notifications'],
  ])('%s %s goes to %s with its query string', async (method, url, service) => {
    const response = await gateway.inject({ method: method as 'GET', url });
    expect(response.statusCode).toBe(200);
    const echoed = response.json<Echoed>();
    expect(echoed.server.startsWith(service)).toBe(true);
    expect(echoed.method).toBe(method);
    expect(echoed.url).toBe(url);
  });

  it('answers an unknown /api path and /internal paths with 404 problem+json, contacting no upstream', async () => {
    const before = totalHits();
    for (const url of [
      '/api/unknown',
      `/api/users/${id}/secrets`,
      '/internal/x',
      '/internal/users/by-name/a',
      '/api/users/../../internal/x',
    ]) {
      const response = await gateway.inject({ method: 'GET', url });
      expectProblem(response, 404, 'NOT_FOUND');
    }
    expectProblem(await gateway.inject({ method: 'POST', url: '/api/nothing', payload: { a: 1 } }), 404, 'NOT_FOUND');
    expect(totalHits()).toBe(before);
  });

  it('refuses a read sent with a body, 400 problem+json, contacting no upstream', async () => {
    const before = totalHits();
    const response = await gateway.inject({
      method: 'GET',
      url: '/api/recipes?page=1',
      payload: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    const body = expectProblem(response, 400, 'VALIDATION_ERROR');
    expect(body).toMatchObject({
      instance: '/api/recipes',
      errors: [{ path: 'body', message: 'this operation takes no body' }],
    });
    expect(totalHits()).toBe(before);
  });

  it('uses the addresses of a service in turn', async () => {
    const servers: string[] = [];
    for (let i = 0; i < 4; i += 1)
      servers.push((await gateway.inject({ method: 'GET', url: '/api/users/me' })).json<Echoed>().server);
    expect(servers.filter((server) => server === 'users-1')).toHaveLength(2);
    expect(servers.filter((server) => server === 'users-2')).toHaveLength(2);
    expect(servers[0]).not.toBe(servers[1]);
    expect(servers[1]).not.toBe(servers[2]);
  });
});

describe('forwarding', () => {
  const json = '{ "content" : "héllo @bob",\n "n": 1.50 }';

  it('forwards a POST body byte for byte, with its content type', async () => {
    const response = await gateway.inject({
      method: 'POST',
      url: `/api/recipes/${id}/comments`,
      payload: json,
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: 'Bearer abc' },
    });
    const echoed = response.json<Echoed>();
    expect(Buffer.from(echoed.body!, 'base64').toString()).toBe(json);
    expect(echoed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(echoed.headers['content-length']).toBe(String(Buffer.byteLength(json)));
    expect(echoed.headers.authorization).toBe('Bearer abc');
  });

  it('forwards a DELETE body', async () => {
    const payload = JSON.stringify({ savedItemId: id });
    const response = await gateway.inject({
      method: 'DELETE',
      url: `/api/collections/${id}/items`,
      payload,
      headers: { 'content-type': 'application/json' },
    });
    const echoed = response.json<Echoed>();
    expect(echoed.method).toBe('DELETE');
    expect(Buffer.from(echoed.body!, 'base64').toString()).toBe(payload);
  });

  it('passes bodies of any content type through, so the service can answer 415 or 400 itself', async () => {
    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const form = await gateway.inject({
      method: 'POST',
      url: '/api/recipes',
      payload: 'name=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(Buffer.from(form.json<Echoed>().body!, 'base64').toString()).toBe('name=a');
    const raw = await gateway.inject({
      method: 'PUT',
      url: `/api/recipes/${id}`,
      payload: binary,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(Buffer.from(raw.json<Echoed>().body!, 'base64')).toEqual(binary);
    const malformed = await gateway.inject({
      method: 'POST',
      url: '/api/recipes',
      payload: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(Buffer.from(malformed.json<Echoed>().body!, 'base64').toString()).toBe('{"title": ');
  });

  it('streams a chunked body (no content-length) through', async () => {
    const chunks = ['{"savedItemId":', `"${id}"`, '}'];
    const response = await request(`${base}/api/collections/${id}/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(chunks.map((chunk) => Buffer.from(chunk))),
    });
    const echoed = (await response.body.json()) as Echoed;
    expect(Buffer.from(echoed.body!, 'base64').toString()).toBe(chunks.join(''));
  });

  it('forwards a body sent with Expect: 100-continue (as curl does for larger bodies)', async () => {
    const payload = JSON.stringify({ content: 'x'.repeat(2000) });
    const echoed = await new Promise<Echoed>((resolve, reject) => {
      const outgoing = httpRequest(`${base}/api/recipes/${id}/comments`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          expect: '100-continue',
        },
      });
      outgoing.on('continue', () => outgoing.end(payload));
      outgoing.on('response', (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
        incoming.on('end', () => resolve(JSON.parse(text) as Echoed));
      });
      outgoing.on('error', reject);
    });
    expect(Buffer.from(echoed.body!, 'base64').toString()).toBe(payload);
    expect(echoed.headers.expect).toBeUndefined();
  });

  it('returns the upstream response as is: status, headers and body', async () => {
    const response = await gateway.inject({
      method: 'GET',
      url: '/api/recipes?x=1',
      headers: { 'x-echo-status': '418' },
    });
    expect(response.statusCode).toBe(418);
    expect(response.headers['x-upstream']).toBe('content');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json<Echoed>().url).toBe('/api/recipes?x=1');
  });

  it('propagates a given x-request-id to the upstream and back', async () => {
    const response = await gateway.inject({
      method: 'GET',
      url: '/api/notifications',
      headers: { 'x-request-id': 'req-gateway-1' },
    });
    expect(response.headers['x-request-id']).toBe('req-gateway-1');
    expect(response.json<Echoed>().headers['x-request-id']).toBe('req-gateway-1');
  });

  it('generates an x-request-id when none (or an unacceptable one) is given, and sends the same one upstream', async () => {
    for (const headers of [{}, { 'x-request-id': 'bad id\twith spaces' }]) {
      const response = await gateway.inject({ method: 'GET', url: '/api/notifications', headers });
      const generated = response.headers['x-request-id'];
      expect(generated).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.json<Echoed>().headers['x-request-id']).toBe(generated);
    }
  });

  it('sends the client address as x-forwarded-for, whatever the client claims (no proxy is trusted by default)', async () => {
    const direct = await gateway.inject({ method: 'GET', url: '/api/posts', remoteAddress: '127.0.0.1' });
    expect(direct.json<Echoed>().headers['x-forwarded-for']).toBe('127.0.0.1');
    const claiming = await gateway.inject({
      method: 'GET',
      url: '/api/posts',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(claiming.json<Echoed>().headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('sends the upstream host, not the client-facing one', async () => {
    const echoed = (
      await gateway.inject({ method: 'GET', url: '/api/posts', headers: { host: 'api.example.com' } })
    ).json<Echoed>();
    expect(echoed.headers.host).toBe(new URL(content.url).host);
  });
});

describe('body limit', () => {
  const big = JSON.stringify({ content: 'x'.repeat(65 * 1024) });

  it('answers a body over 64 KiB with 413 problem+json, without forwarding it', async () => {
    const before = content.hits;
    const response = await gateway.inject({
      method: 'POST',
      url: '/api/recipes',
      payload: big,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(content.hits).toBe(before);
  });

  it('answers a chunked body over 64 KiB (no content-length) with 413 too', async () => {
    const before = content.hits;
    const response = await request(`${base}/api/recipes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(
        Array.from({ length: Math.ceil(big.length / 8192) }, (_, i) =>
          Buffer.from(big.slice(i * 8192, (i + 1) * 8192)),
        ),
      ),
    });
    const text = await response.body.text();
    expectProblem(
      { statusCode: response.statusCode, headers: response.headers, json: () => JSON.parse(text) },
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(content.hits).toBe(before);
  });

  it('forwards a body of exactly 64 KiB', async () => {
    const payload = 'x'.repeat(64 * 1024);
    const response = await gateway.inject({
      method: 'POST',
      url: '/api/recipes',
      payload,
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.statusCode).toBe(200);
    expect(Buffer.from(response.json<Echoed>().body!, 'base64').length).toBe(64 * 1024);
  });
});

describe('browser-facing headers', () => {
  it('answers a CORS preflight itself, allowing every method the API uses', async () => {
    const before = totalHits();
    const response = await gateway.inject({
      method: 'OPTIONS',
      url: `/api/collections/${id}/items`,
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'DELETE',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(String(response.headers['access-control-allow-methods'])).toMatch(/DELETE/);
    expect(String(response.headers['access-control-allow-methods'])).toMatch(/PATCH/);
    expect(String(response.headers['access-control-allow-headers'])).toMatch(/authorization/);
    expect(totalHits()).toBe(before);
  });

  it('exposes x-request-id to browsers on proxied responses', async () => {
    const response = await gateway.inject({
      method: 'GET',
      url: '/api/recipes',
      headers: { origin: 'https://app.example' },
    });
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(String(response.headers['access-control-expose-headers'])).toMatch(/x-request-id/);
  });

  it('sets security headers on proxied responses and on errors', async () => {
    for (const url of ['/api/recipes', '/api/unknown']) {
      const response = await gateway.inject({ method: 'GET', url });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['strict-transport-security']).toMatch(/max-age=/);
      expect(response.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });
});

describe('/health', () => {
  it('is 200 ready when every service (every address) is ready', async () => {
    const response = await gateway.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'ready',
      services: { users: 'up', content: 'up', comments: 'up', collections: 'up', notifications: 'up' },
    });
  });

  it('keeps the gateway’s own probes', async () => {
    expect((await gateway.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    expect((await gateway.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
  });

  it('is 503 not taken, for every probe, once the gateway stops taking requests', async () => {
    const stopping = await startGateway(env);
    try {
      stopTaking(stopping);
      for (const url of ['/health', '/health/ready', '/health/live']) {
        const response = await stopping.inject({ method: 'GET', url });
        expectProblem(response, 503, 'SERVICE_UNAVAILABLE');
        expect(response.headers[NOT_TAKEN_HEADER]).toBe('stopping');
      }
    } finally {
      await stopping.close();
    }
  });
});

describe('/docs', () => {
  it('serves the built document whole at /openapi.json and /docs/json, with every service down', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-docs-')), 'openapi.json');
    const document = {
      openapi: '3.1.0',
      info: { title: 'recipes', version: '1.0.0' },
      paths: { '/api/recipes': {}, '/api/notifications': {} },
    };
    writeFileSync(file, JSON.stringify(document));
    const down = await unusedUrl();
    const alone = await startGateway({
      USERS_URL: down,
      CONTENT_URL: down,
      COMMENTS_URL: down,
      COLLECTIONS_URL: down,
      NOTIFICATIONS_URL: down,
      OPENAPI_DOCUMENT: file,
    });
    try {
      for (const url of ['/openapi.json', '/docs/json']) {
        const response = await alone.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(200);
        expect(response.json(), url).toEqual(document);
      }
    } finally {
      await alone.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('serves by default the document the build merged from every service', async () => {
    const built = JSON.parse(readFileSync('generated/openapi.json', 'utf8')) as { paths: Record<string, unknown> };
    const response = await gateway.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.json()).toEqual(built);
    for (const path of [
      '/api/users/me',
      '/api/recipes/{id}',
      '/api/comments/{id}',
      '/api/collections',
      '/api/notifications',
    ])
      expect(Object.keys(built.paths)).toContain(path);
  });

  it('does not start without its document, and says how to make it', async () => {
    await expect(startGateway({ ...env, OPENAPI_DOCUMENT: '/nonexistent/openapi.json' })).rejects.toThrow(
      /\/nonexistent\/openapi\.json could not be read .*npm run build/,
    );
  });

  it('serves Swagger UI under the security headers', async () => {
    const page = await gateway.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
    const script = await gateway.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    const initializer = await gateway.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.body).toMatch(/\.\/json/);
  });
});
