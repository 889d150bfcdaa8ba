import { BODY_LIMIT_BYTES } from '@recipes/http';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { startTestSystem } from './support/system.js';
import { expectProblem, type JsonCall, jsonClient, rawClient, type RawResponse } from './support/http.js';
import { type Account, create, register } from './support/world.js';

/**
 * Limits through the gateway, set low for this system: the login, registration and comment rate limits of
 * the services, the gateway's own limit per address, and the body size limit.
 */
const WINDOW_MS = 60_000;
const LIMITS = {
  RATE_LIMIT_MAX: 12,
  LOGIN_LIMIT_PER_ADDRESS: 5,
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: 2,
  LOGIN_FAILURES_PER_ADDRESS: 3,
  REGISTER_LIMIT_PER_ADDRESS: 3,
  COMMENT_LIMIT_PER_MINUTE: 3,
};

let system: StartedSystem;
let gateway: string;
let ada: Account;
let bob: Account;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_limits',
    portOffset: 3300,
    env: {
      ...Object.fromEntries(Object.entries(LIMITS).map(([name, value]) => [name, String(value)])),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      DATABASE_POOL_MAX: '4',
    },
  });
  gateway = system.urlOf('gateway');
  const setup = from('127.51.100.1');
  [ada, bob] = [await register(setup, 'limits_ada'), await register(setup, 'limits_bob')];
}, 90_000);
afterAll(() => system?.stop());

/**
 * Calls as a client at `address`, an address of 127.0.0.0/8 that the calls really come from (the gateway
 * believes no X-Forwarded-For by default). Every section uses addresses of its own and so budgets of its own.
 */
function from(address: string): JsonCall {
  return jsonClient(`${gateway}/api`, { localAddress: address });
}

/** Calls from `address` that each claim another address of their own making, in every header that can name one. */
function spoofingFrom(address: string): JsonCall {
  const call = from(address);
  let claims = 0;
  return (method, path, body, token, headers = {}) => {
    claims += 1;
    const claimed = `10.9.${claims}.1`;
    return call(method, path, body, token, {
      'x-forwarded-for': claimed,
      forwarded: `for=${claimed}`,
      'x-real-ip': claimed,
      ...headers,
    });
  };
}

/** 429 RATE_LIMITED problem+json, with a Retry-After in whole seconds within the window. */
function expectRateLimited(response: RawResponse, context: string) {
  expectProblem(response, 429, context);
  expect(JSON.parse(response.text).code).toBe('RATE_LIMITED');
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter), `${context}: Retry-After ${response.headers['retry-after']}`).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
}

describe('registration', () => {
  it(`allows ${LIMITS.REGISTER_LIMIT_PER_ADDRESS} per address, then 429 without creating the account`, async () => {
    const call = from('127.51.100.10');
    for (let i = 0; i < LIMITS.REGISTER_LIMIT_PER_ADDRESS; i++) await register(call, `limits_reg_${i}`);
    const refused = await call('POST', '/auth/register', {
      username: 'limits_reg_extra',
      password: 'correct horse battery',
    });
    expectRateLimited(refused.raw, 'register');
    expect((await from('127.51.100.11')('GET', '/users/limits_reg_extra')).status).toBe(404);
    // Another address has a budget of its own.
    expect(
      (
        await from('127.51.100.11')('POST', '/auth/register', {
          username: 'limits_reg_other',
          password: 'correct horse battery',
        })
      ).status,
    ).toBe(201);
  });
});

describe('login', () => {
  const login = (call: JsonCall, username: string, password = 'correct horse battery') =>
    call('POST', '/auth/login', { username, password });

  it(
    `refuses the guessing address after ${LIMITS.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS} ` +
      `failures for a username, even the right password, never the owner at another`,
    async () => {
      const [guesser, owner] = [from('127.51.100.20'), from('127.51.100.21')];
      for (let i = 0; i < LIMITS.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS; i++) {
        expect((await login(guesser, 'LIMITS_ADA', 'wrong password')).status).toBe(401);
      }
      expectRateLimited((await login(guesser, 'limits_ada')).raw, 'login failures per username and address');
      expect((await login(owner, 'limits_ada')).status).toBe(200);
      // The guesser may still log in to another account.
      expect((await login(guesser, 'limits_bob')).status).toBe(200);
    },
  );

  it(`allows ${LIMITS.LOGIN_FAILURES_PER_ADDRESS} failures per address whatever the usernames, then 429`, async () => {
    const call = from('127.51.100.30');
    for (let i = 0; i < LIMITS.LOGIN_FAILURES_PER_ADDRESS; i++)
      expect((await login(call, `limits_nobody_${i}`)).status).toBe(401);
    expectRateLimited((await login(call, 'limits_bob')).raw, 'login failures per address');
    expect((await login(from('127.51.100.31'), 'limits_bob')).status).toBe(200);
  });

  it(`allows ${LIMITS.LOGIN_LIMIT_PER_ADDRESS} attempts per address, successful or not, then 429`, async () => {
    const call = from('127.51.100.32');
    for (let i = 0; i < LIMITS.LOGIN_LIMIT_PER_ADDRESS; i++) {
      const response = await login(call, 'limits_bob');
      expect(response.status).toBe(200);
      // The service's limit and the gateway's, each once, by name: neither overwrites the other.
      expect(response.headers.get('ratelimit-policy')).toBe(
        `"login";q=${LIMITS.LOGIN_LIMIT_PER_ADDRESS};w=60, "gateway";q=${LIMITS.RATE_LIMIT_MAX};w=60`,
      );
      expect(response.headers.get('ratelimit')).toMatch(
        new RegExp(`^"login";r=${LIMITS.LOGIN_LIMIT_PER_ADDRESS - 1 - i};t=\\d+, "gateway";r=\\d+;t=\\d+$`),
      );
    }
    expectRateLimited((await login(call, 'limits_bob')).raw, 'login attempts per address');
  });
});

describe('comments', () => {
  it(`allows ${LIMITS.COMMENT_LIMIT_PER_MINUTE} a minute per caller, then 429 without storing it`, async () => {
    const recipe = await create(
      from('127.51.100.40'),
      '/recipes',
      { title: 'Limited', cameraModel: 'X-T5', filmSimulation: 'Provia' },
      ada,
      'recipe',
    );
    // Each comment from another address: only the limit per caller is in play.
    for (let i = 0; i < LIMITS.COMMENT_LIMIT_PER_MINUTE; i++) {
      await create(
        from(`127.51.100.${41 + i}`),
        `/recipes/${recipe.id}/comments`,
        { content: `comment ${i}` },
        ada,
        'comment',
      );
    }
    const refused = await from('127.51.100.49')(
      'POST',
      `/recipes/${recipe.id}/comments`,
      { content: 'one too many' },
      ada.token,
    );
    expectRateLimited(refused.raw, 'comment');
    const listed = await from('127.51.100.49')('GET', `/recipes/${recipe.id}/comments`);
    expect(listed.body.total).toBe(LIMITS.COMMENT_LIMIT_PER_MINUTE);
    // Another caller still may.
    await create(from('127.51.100.49'), `/recipes/${recipe.id}/comments`, { content: 'mine' }, bob, 'comment');
  });
});

describe('the gateway', () => {
  it(`allows ${LIMITS.RATE_LIMIT_MAX} API requests per address a window, then 429 before any service`, async () => {
    const call = from('127.51.100.60');
    for (let i = 0; i < LIMITS.RATE_LIMIT_MAX; i++)
      expect((await call('GET', `/users/${ada.user.id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', `/users/${ada.user.id}`, undefined],
      ['POST', '/posts', { title: 'Limited' }],
    ] as const) {
      const refused = await call(method, path, body, ada.token);
      expectRateLimited(refused.raw, `gateway ${method} ${path}`);
      expect(refused.headers.get('ratelimit')).toMatch(/^"gateway";r=0;t=\d+$/);
    }
    // Health and docs are never limited, and another address has its own budget.
    expect(
      (await fetch(`${gateway}/health`, { dispatcher: new Agent({ localAddress: '127.51.100.60' }) } as RequestInit))
        .status,
    ).toBe(200);
    expect((await from('127.51.100.61')('GET', `/users/${ada.user.id}`)).status).toBe(200);
  });
});

describe('a client that names its own address in X-Forwarded-For, Forwarded or X-Real-IP', () => {
  const login = (call: JsonCall, username: string, password = 'correct horse battery') =>
    call('POST', '/auth/login', { username, password });

  it('gets no fresh registration budget', async () => {
    const call = spoofingFrom('127.52.0.1');
    for (let i = 0; i < LIMITS.REGISTER_LIMIT_PER_ADDRESS; i++) await register(call, `spoof_reg_${i}`);
    expectRateLimited(
      (await call('POST', '/auth/register', { username: 'spoof_reg_extra', password: 'correct horse battery' })).raw,
      'register',
    );
  });

  it('gets no fresh login attempts', async () => {
    const call = spoofingFrom('127.52.0.2');
    for (let i = 0; i < LIMITS.LOGIN_LIMIT_PER_ADDRESS; i++) expect((await login(call, 'limits_bob')).status).toBe(200);
    expectRateLimited((await login(call, 'limits_bob')).raw, 'login attempts');
  });

  it('gets no fresh failed-login count, for one username or across them', async () => {
    const guesser = spoofingFrom('127.52.0.3');
    for (let i = 0; i < LIMITS.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS; i++)
      expect((await login(guesser, 'limits_ada', 'wrong password')).status).toBe(401);
    expectRateLimited((await login(guesser, 'limits_ada', 'wrong password')).raw, 'failures per username');
    const sprayer = spoofingFrom('127.52.0.4');
    for (let i = 0; i < LIMITS.LOGIN_FAILURES_PER_ADDRESS; i++)
      expect((await login(sprayer, `spoof_nobody_${i}`)).status).toBe(401);
    expectRateLimited((await login(sprayer, 'limits_bob')).raw, 'failures per address');
  });

  it('gets no fresh gateway budget', async () => {
    const call = spoofingFrom('127.52.0.5');
    for (let i = 0; i < LIMITS.RATE_LIMIT_MAX; i++)
      expect((await call('GET', `/users/${ada.user.id}`)).status).toBe(200);
    expectRateLimited((await call('GET', `/users/${ada.user.id}`)).raw, 'gateway');
  });
});

describe('body size', () => {
  /** A JSON body of exactly `size` bytes. */
  const bodyOf = (size: number) => {
    const empty = JSON.stringify({ title: '' });
    return Buffer.from(JSON.stringify({ title: 'x'.repeat(size - empty.length) }));
  };

  it.each([false, true])(
    `refuses a body over ${BODY_LIMIT_BYTES} bytes with 413 problem+json (chunked: %s)`,
    async (chunked) => {
      const client = rawClient(gateway, 1);
      try {
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${ada.token}` };
        const atLimit = await client.send({
          method: 'POST',
          path: '/api/posts',
          headers,
          body: bodyOf(BODY_LIMIT_BYTES),
          chunked,
        });
        // Within the limit the service judges it (a title of 65 000 characters is too long): not 413.
        expectProblem(atLimit, 400, 'at the limit');
        const over = await client.send({
          method: 'POST',
          path: '/api/posts',
          headers,
          body: bodyOf(BODY_LIMIT_BYTES + 1),
          chunked,
        });
        expectProblem(over, 413, 'one byte over');
        expect(JSON.parse(over.text).code).toBe('PAYLOAD_TOO_LARGE');
      } finally {
        client.close();
      }
    },
  );
});
