import { problemSchema } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsersHarness, usersHarness } from './support.js';

/** Failed logins count per username and address, and per address: the guesser is refused, the owner is not. */
const FAILURES_PER_PAIR = 3;
const FAILURES_PER_ADDRESS = 6;
const PASSWORD = 'password123';

let harness: UsersHarness;
beforeAll(async () => {
  harness = await usersHarness({
    LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: String(FAILURES_PER_PAIR),
    LOGIN_FAILURES_PER_ADDRESS: String(FAILURES_PER_ADDRESS),
    LOGIN_LIMIT_PER_ADDRESS: '1000',
    REGISTER_LIMIT_PER_ADDRESS: '1000',
  });
  for (const username of ['Victim', 'Forgetful', 'Bystander', 'Parallel']) {
    const response = await harness.app.inject({ method: 'POST', url: '/api/auth/register', payload: { username, password: PASSWORD } });
    expect(response.statusCode).toBe(201);
  }
});
afterAll(() => harness.close());

const login = (username: string, password: string, remoteAddress: string) =>
  harness.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress });

async function expectFailures(username: string, address: string, count: number) {
  for (let i = 0; i < count; i++) expect((await login(username, 'wrong-guess', address)).statusCode, `failure ${i + 1}`).toBe(401);
}

function expectRateLimited(response: Awaited<ReturnType<typeof login>>) {
  expect(response.statusCode).toBe(429);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(problemSchema.parse(response.json()).code).toBe('RATE_LIMITED');
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(harness.config.RATE_LIMIT_WINDOW_MS / 1000);
}

describe('failed logins', () => {
  it(`refuse the guessing address after ${FAILURES_PER_PAIR} failures, even the right password, while the owner logs in from another`, async () => {
    const [guesser, owner] = ['198.51.100.1', '203.0.113.1'];
    await expectFailures('VICTIM', guesser, FAILURES_PER_PAIR);
    expectRateLimited(await login('victim', PASSWORD, guesser));
    expect((await login('Victim', PASSWORD, owner)).statusCode).toBe(200);
    // The owner's success clears the owner's address only: the guesser is still refused.
    expectRateLimited(await login('victim', 'another-guess', guesser));
    // And the guesser's other logins are not refused on the victim's account.
    expect((await login('bystander', PASSWORD, guesser)).statusCode).toBe(200);
  });

  it('start afresh for that username and address after a success there', async () => {
    const address = '198.51.100.2';
    await expectFailures('Forgetful', address, FAILURES_PER_PAIR - 1);
    expect((await login('forgetful', PASSWORD, address)).statusCode).toBe(200);
    // Without the reset, the second of these would be refused.
    await expectFailures('Forgetful', address, FAILURES_PER_PAIR);
    expectRateLimited(await login('forgetful', PASSWORD, address));
  });

  it(`refuse an address after ${FAILURES_PER_ADDRESS} failures across usernames, and only that address`, async () => {
    const address = '198.51.100.3';
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await expectFailures(`sprayed_${i}`, address, 1);
    expectRateLimited(await login('bystander', PASSWORD, address));
    expect((await login('bystander', PASSWORD, '203.0.113.3')).statusCode).toBe(200);
  });

  it('count guesses sent all at once before any of them is checked', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => login('parallel', 'wrong-guess', '198.51.100.4')));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([...Array(FAILURES_PER_PAIR).fill(401), ...Array(10 - FAILURES_PER_PAIR).fill(429)]);
  });
});
