import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type UsersHarness, usersHarness } from '../support.js';

/** Names no registration accepts name nobody: a clear 404 or 401, never a 500 from the database. */
let harness: UsersHarness;
beforeAll(async () => {
  harness = await usersHarness({
    LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '1000',
    LOGIN_FAILURES_PER_ADDRESS: '1000',
    LOGIN_LIMIT_PER_ADDRESS: '1000',
  });
  const registered = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username: 'odd_ada', password: 'password123' },
  });
  expect(registered.statusCode).toBe(201);
});
afterAll(() => harness.close());

const oddNames = ['\u0000', 'odd_ada\u0000', 'a\u0000b', '\uD800', "odd_ada' --", 'odd ada', 'x'.repeat(100)];

describe('names that cannot be usernames', () => {
  it.each(oddNames)('GET /api/users/%j is 404', async (name) => {
    const url = `/api/users/${[...Buffer.from(name)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')}`;
    expect(expectProblem(await harness.app.inject({ method: 'GET', url }), 404).code).toBe('NOT_FOUND');
  });

  it.each(oddNames)('logging in as %j is the usual 401', async (username) => {
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username, password: 'password123' },
    });
    expect(expectProblem(response, 401).code).toBe('UNAUTHORIZED');
  });

  it('still finds a real name in any case', async () => {
    expect((await harness.app.inject({ method: 'GET', url: '/api/users/ODD_ADA' })).statusCode).toBe(200);
    const login = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'Odd_Ada', password: 'password123' },
    });
    expect(login.statusCode).toBe(200);
  });
});
