import { randomUUID } from 'node:crypto';
import { connectSharedStore, type SharedStore } from '@recipes/http';
import { removeRedisKeys, TEST_REDIS_URL } from '@recipes/testing/cleanup';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoginAttempt, loginGuard, type LoginGuardOptions } from '../src/login-guard.js';
import { forgetFailuresOfUsername, sharedFailureCounter } from '../src/shared-failure-counter.js';

const WINDOW_MS = 60_000;
const limits = { failuresPerUsernameAndAddress: 2, failuresPerAddress: 3, windowMs: WINDOW_MS };
const silent = { warn: () => undefined };

const prefix = `test-login-guard-${randomUUID()}:`;
let shared: SharedStore | undefined;
afterAll(async () => {
  await shared?.close();
  await removeRedisKeys(TEST_REDIS_URL, prefix);
});

/**
 * The same rules, counted in this instance's memory (on a stopped clock) and in the shared store (Redis),
 * where each guard counts under keys of its own. Forgiving and clearing are not waited for there, but one
 * connection's commands run in order, so the next attempt sees them.
 */
const counting: Record<string, () => Promise<Pick<LoginGuardOptions, 'counter' | 'now'>>> = {
  memory: async () => ({ now: () => 0 }),
  'the shared store': async () => {
    shared ??= await connectSharedStore({ url: TEST_REDIS_URL, prefix, logger: silent });
    const store = { ...shared, prefix: `${prefix}${randomUUID()}:` };
    return {
      counter: (name, limit) => sharedFailureCounter(store, { name, limit, windowMs: WINDOW_MS, logger: silent }),
    };
  },
};

function admitted(attempt: LoginAttempt) {
  if (attempt.refused) throw new Error(`refused for ${attempt.retryAfterMs} ms`);
  return attempt;
}

describe.each(Object.keys(counting))('loginGuard, counting in %s', (where) => {
  const guard = async () => loginGuard({ ...limits, ...(await counting[where]!()) });

  it('refuses a username from the address that failed, not from another, and matches it in any case', async () => {
    const logins = await guard();
    await logins.begin('Ada', '198.51.100.1');
    await logins.begin('ada', '198.51.100.1');
    const refused = await logins.begin('ADA', '198.51.100.1');
    expect(refused).toMatchObject({ refused: true });
    expect(refused.refused && refused.retryAfterMs).toBeGreaterThan(WINDOW_MS - 5_000);
    expect(refused.refused && refused.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
    expect((await logins.begin('ada', '198.51.100.2')).refused).toBe(false);
  });

  it('refuses an address that failed too often across usernames', async () => {
    const logins = await guard();
    for (const name of ['a', 'b', 'c']) await logins.begin(name, '198.51.100.1');
    expect((await logins.begin('d', '198.51.100.1')).refused).toBe(true);
    expect((await logins.begin('d', '198.51.100.2')).refused).toBe(false);
  });

  it('clears the pair at a success, but keeps the address’s other failures', async () => {
    const logins = await guard();
    await logins.begin('a', '198.51.100.1');
    admitted(await logins.begin('b', '198.51.100.1'));
    admitted(await logins.begin('b', '198.51.100.1')).succeeded();
    // b starts afresh; the address has failed twice (a, b) and its success was not one more.
    admitted(await logins.begin('b', '198.51.100.1'));
    expect((await logins.begin('b', '198.51.100.1')).refused).toBe(true);
  });

  it('does not count an abandoned attempt', async () => {
    const logins = await guard();
    for (let i = 0; i < 5; i++) admitted(await logins.begin('a', '198.51.100.1')).abandoned();
    expect((await logins.begin('a', '198.51.100.1')).refused).toBe(false);
  });
});

describe('a deleted account’s failed logins in the shared store', () => {
  it('go, from every address and in any case, and no other name’s with them, however often', async () => {
    shared ??= await connectSharedStore({ url: TEST_REDIS_URL, prefix, logger: silent });
    const store = { ...shared, prefix: `${prefix}${randomUUID()}:` };
    const logins = loginGuard({
      ...limits,
      counter: (name, limit) => sharedFailureCounter(store, { name, limit, windowMs: WINDOW_MS, logger: silent }),
    });
    for (const [name, address] of [
      ['Ada', '198.51.100.1'],
      ['ADA', '198.51.100.2'],
      ['adam', '198.51.100.1'],
      ['bob_ada', '198.51.100.3'],
    ] as const)
      await logins.begin(name, address);
    const keys = async () => (await shared!.redis.keys(`${store.prefix}failures:pairs:*`)).sort();
    expect(await keys()).toHaveLength(4);

    await forgetFailuresOfUsername(store, 'pairs', 'Ada');
    await forgetFailuresOfUsername(store, 'pairs', 'Ada');
    expect(await keys()).toEqual([
      `${store.prefix}failures:pairs:198.51.100.1 adam`,
      `${store.prefix}failures:pairs:198.51.100.3 bob_ada`,
    ]);
    // The addresses' own counts are nobody's name: they stay.
    expect(await shared!.redis.exists(`${store.prefix}failures:addresses:198.51.100.1`)).toBe(1);
  });
});
