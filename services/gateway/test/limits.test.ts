import { problemSchema } from '@recipes/contracts';
import type { App } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyServiceAt, startGateway, startUpstream, type Upstream } from './support/servers.js';

let upstream: Upstream;
let gateway: App;

beforeAll(async () => {
  upstream = await startUpstream('everything', { paths: ['/api/recipes'] });
  gateway = await startGateway({
    ...everyServiceAt(upstream.url),
    RATE_LIMIT_MAX: '3',
    RATE_LIMIT_WINDOW_MS: '60000',
    CORS_ORIGINS: 'https://app.example,https://admin.example',
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After after RATE_LIMIT_MAX requests from one address', async () => {
    const client = { remoteAddress: '203.0.113.1' };
    for (let i = 0; i < 3; i += 1) {
      const response = await gateway.inject({ method: 'GET', url: '/api/recipes', ...client });
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-policy']).toBe('"gateway";q=3;w=60');
      expect(response.headers.ratelimit).toMatch(new RegExp(`^"gateway";r=${2 - i};t=\\d+$`));
    }
    const before = upstream.hits;
    const limited = await gateway.inject({ method: 'POST', url: '/api/recipes', payload: { title: 'x' }, ...client });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = problemSchema.parse(limited.json());
    expect(body).toMatchObject({ status: 429, code: 'RATE_LIMITED', requestId: limited.headers['x-request-id'] });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(upstream.hits).toBe(before);

    // Another address has its own budget.
    expect(
      (await gateway.inject({ method: 'GET', url: '/api/recipes', remoteAddress: '203.0.113.2' })).statusCode,
    ).toBe(200);
  });

  it('announces its limit beside a service’s, one item per limit, never overwriting either', async () => {
    const service = { 'ratelimit-policy': '"login";q=10;w=60', ratelimit: '"login";r=9;t=60', vary: 'Authorization' };
    const response = await gateway.inject({
      method: 'POST',
      url: '/api/recipes',
      payload: { title: 'x' },
      remoteAddress: '203.0.113.4',
      headers: { origin: 'https://app.example', 'x-echo-headers': JSON.stringify(service) },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-policy']).toBe('"login";q=10;w=60, "gateway";q=3;w=60');
    expect(response.headers.ratelimit).toMatch(/^"login";r=9;t=60, "gateway";r=2;t=\d+$/);
    expect(
      String(response.headers.vary)
        .split(/\s*,\s*/)
        .sort(),
    ).toEqual(['Authorization', 'Origin']);
    for (const old of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(response.headers[old]).toBeUndefined();
    expect(String(response.headers['access-control-expose-headers']).split(', ')).toEqual(
      expect.arrayContaining([
        'etag',
        'link',
        'retry-after',
        'ratelimit',
        'ratelimit-policy',
        'x-request-id',
        'www-authenticate',
      ]),
    );
  });

  it('never limits health probes or the docs', async () => {
    const client = { remoteAddress: '203.0.113.3' };
    for (let i = 0; i < 3; i += 1) await gateway.inject({ method: 'GET', url: '/api/recipes', ...client });
    expect((await gateway.inject({ method: 'GET', url: '/api/recipes', ...client })).statusCode).toBe(429);
    for (const url of ['/health', '/health/live', '/health/ready', '/docs', '/docs/json', '/docs/json']) {
      expect((await gateway.inject({ method: 'GET', url, ...client })).statusCode, url).toBe(200);
    }
  });
});

describe('CORS with a list of origins', () => {
  it('allows a listed origin and no other', async () => {
    const allowed = await gateway.inject({
      method: 'GET',
      url: '/health/live',
      headers: { origin: 'https://admin.example' },
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.example');
    expect(String(allowed.headers.vary)).toMatch(/origin/i);
    const refused = await gateway.inject({
      method: 'GET',
      url: '/health/live',
      headers: { origin: 'https://evil.example' },
    });
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});
