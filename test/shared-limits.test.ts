import { randomUUID } from 'node:crypto';
import { createTcpProxy, type TcpProxy } from '@recipes/testing';
import { removeRedisKeys, TEST_REDIS_URL } from '@recipes/testing/cleanup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from './support/system.js';
import { expectProblem, type JsonCall, jsonClient } from './support/http.js';
import { type Account, create, register } from './support/world.js';

/**
 * Limits with two gateways, each in front of two instances of every service, counting in one shared store
 * (Redis, reached through a proxy the test can cut): a client that spreads its requests over every instance
 * still gets each budget once in all. Counted in each instance's memory, it would get four times the
 * gateway's and twice each service's.
 */
const LIMITS = {
  RATE_LIMIT_MAX: 8,
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: 2,
  LOGIN_FAILURES_PER_ADDRESS: 6,
  LOGIN_LIMIT_PER_ADDRESS: 50,
  REGISTER_LIMIT_PER_ADDRESS: 50,
  COMMENT_LIMIT_PER_MINUTE: 3,
};
const prefix = `test-shared-limits-${randomUUID()}:`;

let system: TestSystem;
let redis: TcpProxy;
let ada: Account;

beforeAll(async () => {
  redis = await createTcpProxy(TEST_REDIS_URL);
  system = await startTestSystem({
    name: 'recipes_shared_limits',
    portOffset: 5800,
    // Twelve processes starting at once, on two cores.
    readyWithinMs: 90_000,
    replicas: 2,
    gateways: 2,
    env: {
      ...Object.fromEntries(Object.entries(LIMITS).map(([name, value]) => [name, String(value)])),
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
    },
  });
  ada = await register(through(0, '127.52.0.1'), 'shared_ada');
}, 120_000);
afterAll(async () => {
  await system?.stop();
  await redis?.close();
  await removeRedisKeys(TEST_REDIS_URL, prefix);
});

/** Calls through gateway `gateway` as a client at `address` (a 127.0.0.0/8 address the calls really come from). */
function through(gateway: number, address: string): JsonCall {
  return jsonClient(`${system.urlOf('gateway', gateway)}/api`, { localAddress: address });
}

/**
 * A client at `address` whose calls go to each gateway in turn, as a load balancer in front of them would send them.
 */
function spreadOver(address: string): JsonCall {
  const gateways = [through(0, address), through(1, address)];
  let next = 0;
  return (...args) => gateways[next++ % gateways.length]!(...args);
}

const login = (call: JsonCall, username: string, password = 'correct horse battery') =>
  call('POST', '/auth/login', { username, password });

describe('with two gateways and two instances of each service', () => {
  it(`the gateway's ${LIMITS.RATE_LIMIT_MAX} requests per address hold in all`, async () => {
    const call = spreadOver('127.52.0.10');
    for (let i = 0; i < LIMITS.RATE_LIMIT_MAX; i++)
      expect((await call('GET', `/users/${ada.user.id}`)).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expectProblem((await call('GET', `/users/${ada.user.id}`)).raw, 429, `request ${LIMITS.RATE_LIMIT_MAX + i + 1}`);
  });

  it(
    `${LIMITS.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS} failed logins for a ` +
      `username from an address hold in all, even with the right password next`,
    async () => {
      const guesser = spreadOver('127.52.0.20');
      for (let i = 0; i < LIMITS.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS; i++)
        expect((await login(guesser, 'shared_ada', 'wrong password')).status).toBe(401);
      for (let i = 0; i < 2; i++)
        expectProblem((await login(guesser, 'shared_ada')).raw, 429, `login ${i + 1} after the failures`);
      expect((await login(spreadOver('127.52.0.21'), 'shared_ada')).status).toBe(200);
    },
  );

  it(`${LIMITS.COMMENT_LIMIT_PER_MINUTE} comments a minute per caller hold in all`, async () => {
    const call = spreadOver('127.52.0.30');
    const recipe = await create(
      call,
      '/recipes',
      { title: 'Shared', cameraModel: 'X-T5', filmSimulation: 'Provia' },
      ada,
      'recipe',
    );
    for (let i = 0; i < LIMITS.COMMENT_LIMIT_PER_MINUTE; i++)
      await create(call, `/recipes/${recipe.id}/comments`, { content: `comment ${i}` }, ada, 'comment');
    for (let i = 0; i < 2; i++)
      expectProblem(
        (await call('POST', `/recipes/${recipe.id}/comments`, { content: 'too many' }, ada.token)).raw,
        429,
        `comment ${i + 1} past the limit`,
      );
  });
});

describe('while the shared store is away', () => {
  it('reads are admitted (rate limits fail open) and logins refused with 503 and Retry-After (failed-login counts fail closed), until it is back', async () => {
    const call = spreadOver('127.52.0.40');
    redis.cut();
    try {
      for (let i = 0; i < LIMITS.RATE_LIMIT_MAX + 2; i++)
        expect((await call('GET', `/users/${ada.user.id}`)).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        const refused = await login(call, 'shared_ada');
        expectProblem(refused.raw, 503, `login ${i + 1} without the store`);
        expect(refused.headers.get('retry-after')).toBe('1');
      }
    } finally {
      redis.restore();
    }
    await expect
      .poll(async () => (await login(spreadOver('127.52.0.41'), 'shared_ada')).status, {
        timeout: 15_000,
        interval: 250,
      })
      .toBe(200);
  });
});
