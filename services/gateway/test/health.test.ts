import type { App } from '@recipes/http';
import { eventually } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, startUpstream, type Upstream } from './support/servers.js';

/** How long the gateway reuses an answer of `/health` here (HEALTH_CACHE_MS). */
const PERIOD_MS = 400;
/** The longest a round of readiness checks takes (HEALTH_TIMEOUT_MS). */
const ROUND_MS = 1_000;

let users1: Upstream;
let users2: Upstream;
let others: Upstream[];
let all: Upstream[];
let gateway: App;

beforeAll(async () => {
  all = await Promise.all(
    ['users-1', 'users-2', 'content', 'comments', 'collections', 'notifications'].map((name) => startUpstream(name)),
  );
  [users1, users2, ...others] = all as [Upstream, Upstream, ...Upstream[]];
  const [content, comments, collections, notifications] = others as [Upstream, Upstream, Upstream, Upstream];
  gateway = await startGateway({
    USERS_URL: `${users1.url},${users2.url}`,
    CONTENT_URL: content.url,
    COMMENTS_URL: comments.url,
    COLLECTIONS_URL: collections.url,
    NOTIFICATIONS_URL: notifications.url,
    HEALTH_CACHE_MS: String(PERIOD_MS),
    HEALTH_TIMEOUT_MS: String(ROUND_MS),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all(all.map((upstream) => upstream.close()));
});

const health = () => gateway.inject({ method: 'GET', url: '/health' });
const checks = () => all.map((upstream) => upstream.readinessChecks);

describe('/health under a flood', () => {
  it('asks every address of every service once for any number of callers at once, and again only after the period', async () => {
    const before = checks();
    const answers = await Promise.all(Array.from({ length: 50 }, health));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(200));
    expect(checks()).toEqual(before.map((count) => count + 1));
    // Callers without pause for two and a half periods: a new round each period at most.
    const roundsBefore = users1.readinessChecks;
    const until = Date.now() + PERIOD_MS * 2.5;
    let answered = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (Date.now() < until) {
          expect((await health()).statusCode).toBe(200);
          answered += 1;
        }
      }),
    );
    const rounds = users1.readinessChecks - roundsBefore;
    expect(answered).toBeGreaterThan(100);
    expect(rounds).toBeGreaterThanOrEqual(1);
    expect(rounds).toBeLessThanOrEqual(3);
    expect(new Set(checks().map((count, n) => count - before[n]!)).size).toBe(1);
  });

  it('shows a service going down within a period and a round of checks, asking once a period meanwhile', async () => {
    await eventually(async () => ((await health()).statusCode === 200 ? true : undefined));
    users2.setReady(false);
    const wentDown = Date.now();
    const roundsBefore = users2.readinessChecks;
    const down = await eventually(
      async () => {
        const answer = await health();
        return answer.statusCode === 503 ? answer : undefined;
      },
      5_000,
      20,
    );
    const tookMs = Date.now() - wentDown;
    expect(down.json()).toEqual({
      status: 'not ready',
      services: { users: 'down', content: 'up', comments: 'up', collections: 'up', notifications: 'up' },
    });
    // The answer of a round that may have just begun, kept for a period.
    expect(tookMs).toBeLessThan(ROUND_MS + PERIOD_MS);
    // Asked every 20 ms meanwhile, the services were asked once a period.
    expect(users2.readinessChecks - roundsBefore).toBeLessThanOrEqual(Math.ceil(tookMs / PERIOD_MS) + 1);
    users2.setReady(true);
    await eventually(async () => ((await health()).statusCode === 200 ? true : undefined), 5_000, 20);
  });
});
