import type { App } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from './support/problems.js';
import { type Echoed, startGateway, startUpstream, type Upstream, unusedUrl } from './support/servers.js';

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';
/** How long a request waits for a service that refuses it, as one restarting would. */
const RESTART_WAIT_MS = 1_500;

let users: Upstream;
let usersStuck: Upstream;
let content: Upstream;
let comments: Upstream;
let slowNotifications: Upstream;
let gateway: App;

beforeAll(async () => {
  [users, usersStuck, content, comments, slowNotifications] = await Promise.all([
    startUpstream('users'),
    startUpstream('users-stuck', { healthDelayMs: 5_000 }),
    startUpstream('content'),
    startUpstream('comments'),
    startUpstream('notifications', { delayMs: 5_000 }),
  ]);
  gateway = await startGateway({
    USERS_URL: `${users.url},${usersStuck.url}`,
    CONTENT_URL: content.url,
    COMMENTS_URL: comments.url,
    COLLECTIONS_URL: await unusedUrl(),
    NOTIFICATIONS_URL: slowNotifications.url,
    UPSTREAM_TIMEOUT_MS: '500',
    UPSTREAM_RESTART_WAIT_MS: String(RESTART_WAIT_MS),
    HEALTH_TIMEOUT_MS: '1000',
    RATE_LIMIT_ENABLED: 'false',
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([users, usersStuck, content, comments, slowNotifications].map((upstream) => upstream?.close()));
});

async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await action();
  return [result, performance.now() - started];
}

describe('an upstream that is down', () => {
  it('gives 503 SERVICE_UNAVAILABLE with Retry-After once the restart wait is over, for reads and for writes with a body', async () => {
    const [read, readMs] = await timed(() =>
      gateway.inject({ method: 'GET', url: `/api/collections/${id}`, headers: { 'x-request-id': 'down-1' } }),
    );
    const body = expectProblem(read, 503, 'SERVICE_UNAVAILABLE');
    expect(body).toMatchObject({ requestId: 'down-1', instance: `/api/collections/${id}` });
    expect(read.headers['retry-after']).toBe('1');
    // Tried again with pauses of 100, 200, 400 ms… within the wait, and not much past it.
    expect(readMs).toBeGreaterThanOrEqual(RESTART_WAIT_MS - 1_000);
    expect(readMs).toBeLessThan(RESTART_WAIT_MS + 1_000);

    const write = await gateway.inject({
      method: 'DELETE',
      url: `/api/collections/${id}/items`,
      payload: { savedItemId: id },
    });
    expectProblem(write, 503, 'SERVICE_UNAVAILABLE');
  });
});

describe('an upstream that is slow', () => {
  it('gives 504 UPSTREAM_TIMEOUT after UPSTREAM_TIMEOUT_MS', async () => {
    const [response, ms] = await timed(() => gateway.inject({ method: 'GET', url: '/api/notifications' }));
    expectProblem(response, 504, 'UPSTREAM_TIMEOUT');
    // undici checks its timeouts on a coarse timer: later than configured by up to about a second.
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(3_000);
  });
});

describe('an upstream answering 503 itself', () => {
  it('is passed on as is, never retried', async () => {
    const before = content.hits;
    const response = await gateway.inject({ method: 'GET', url: '/api/recipes', headers: { 'x-echo-status': '503' } });
    expect(response.statusCode).toBe(503);
    expect(response.headers['x-upstream']).toBe('content');
    expect(response.json<Echoed>().url).toBe('/api/recipes');
    expect(content.hits).toBe(before + 1);
  });
});

describe('/health with services down', () => {
  it('is 503 naming each service, soon after the health timeout', async () => {
    const [response, ms] = await timed(() => gateway.inject({ method: 'GET', url: '/health' }));
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      status: 'not ready',
      // users: one of its two addresses does not answer in time.
      services: { users: 'down', content: 'up', comments: 'up', collections: 'down', notifications: 'up' },
    });
    expect(ms).toBeLessThan(3_000);
  });
});
