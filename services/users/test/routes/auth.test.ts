import { problemSchema } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem, generousLimits, type UsersHarness, usersHarness } from '../support.js';

/** Registration and login: `/api/auth/...` (src/routes/auth). */
let harness: UsersHarness;
beforeAll(async () => (harness = await usersHarness(generousLimits)));
afterAll(() => harness.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'POST', url, payload: payload as object, headers });
const register = (body: Record<string, unknown>) => post('/api/auth/register', body);

async function outboxTypes(): Promise<string[]> {
  const { rows } = await harness.pool.query<{ type: string }>('SELECT type FROM outbox ORDER BY created_at, id');
  return rows.map((row) => row.type);
}

describe('POST /api/auth/register', () => {
  it('creates the user, answers with the author shape and a working token', async () => {
    const { user, token } = await harness.registered('Ada_Lovelace');
    expect(user).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), username: 'Ada_Lovelace', avatarUrl: null });
    const me = await harness.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ user });
  });

  it('stores only a salted slow hash of the password', async () => {
    const { user } = await harness.registered('hash_check', { password: 'my secret words' });
    const { rows } = await harness.pool.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(rows[0].password_hash).not.toContain('my secret words');
  });

  it('keeps an avatar URL', async () => {
    const { user } = await harness.registered('with_avatar', { avatarUrl: 'https://cdn.example.com/a.png' });
    expect(user.avatarUrl).toBe('https://cdn.example.com/a.png');
  });

  it('counts password length in characters, not bytes', async () => {
    expect((await register({ username: 'emoji_pw', password: '🔒'.repeat(8) })).statusCode).toBe(201);
    expectProblem(await register({ username: 'emoji_pw2', password: '🔒'.repeat(7) }), 400);
  });

  it.each([
    ['a too short username', { username: 'ab' }],
    ['a too long username', { username: 'x'.repeat(31) }],
    ['a username with a dash', { username: 'bad-name' }],
    ['a username with unicode', { username: 'zoë_x' }],
    ['the reserved name me', { username: 'me' }],
    ['the reserved name ME', { username: 'ME' }],
    ['a short password', { password: 'short' }],
    ['a long password', { password: 'x'.repeat(129) }],
    ['a javascript: avatar', { avatarUrl: 'javascript:alert(1)' }],
    ['an avatar URL over 2048 characters', { avatarUrl: `https://x.com/${'a'.repeat(2040)}` }],
    ['a numeric username', { username: 12345 }],
    ['a missing password', { password: undefined }],
  ])('rejects %s with 400 and writes nothing', async (_case, override) => {
    const before = await outboxTypes();
    const body = { username: 'valid_name', password: 'password123', ...override };
    const problem = expectProblem(await register(body), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors?.length).toBeGreaterThan(0);
    expect(await outboxTypes()).toEqual(before);
  });

  it('refuses a taken username in any case with 409, and writes no event for it', async () => {
    await harness.registered('Grace');
    const before = await outboxTypes();
    expect(expectProblem(await register({ username: 'gRACE', password: 'password123' }), 409).code).toBe('CONFLICT');
    expect(await outboxTypes()).toEqual(before);
  });

  it('writes one user.created event in the same transaction', async () => {
    const { user } = await harness.registered('evented');
    const { rows } = await harness.pool.query("SELECT payload FROM outbox WHERE payload->'data'->>'id' = $1", [
      user.id,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toMatchObject({
      type: 'user.created',
      version: 1,
      producer: 'users',
      data: { id: user.id, username: 'evented', avatarUrl: null, revision: 0 },
    });
  });

  it('answers malformed JSON, oversized bodies and other media types with problems', async () => {
    const malformed = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: '{"username":',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(malformed, 400);
    expectProblem(await register({ username: 'big_one', password: 'x'.repeat(70_000) }), 413);
    const form = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: 'username=a',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(form, 415);
  });
});

describe('POST /api/auth/login', () => {
  beforeAll(() => harness.registered('Login_User'));

  it('logs in with the username in any case', async () => {
    const response = await post('/api/auth/login', { username: 'login_user', password: 'password123' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ user: { username: 'Login_User' }, token: expect.any(String) });
  });

  it('gives the same 401 for a wrong password and an unknown user', async () => {
    const wrongPassword = expectProblem(
      await post('/api/auth/login', { username: 'Login_User', password: 'nope-nope' }),
      401,
    );
    const unknownUser = expectProblem(
      await post('/api/auth/login', { username: 'nobody_here', password: 'password123' }),
      401,
    );
    expect(wrongPassword.detail).toBe(unknownUser.detail);
    expect(wrongPassword.code).toBe('UNAUTHORIZED');
    // Not a token's fault: no reason, and the plain challenge (docs/api.md §2).
    expect([wrongPassword.reason, unknownUser.reason]).toEqual([undefined, undefined]);
  });
});

/** Failed logins count per username and address, and per address: the guesser is refused, the owner is not. */
describe('failed logins', () => {
  const FAILURES_PER_PAIR = 3;
  const FAILURES_PER_ADDRESS = 6;
  const PASSWORD = 'password123';

  let limited: UsersHarness;
  beforeAll(async () => {
    limited = await usersHarness({
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: String(FAILURES_PER_PAIR),
      LOGIN_FAILURES_PER_ADDRESS: String(FAILURES_PER_ADDRESS),
      LOGIN_LIMIT_PER_ADDRESS: '1000',
      REGISTER_LIMIT_PER_ADDRESS: '1000',
    });
    for (const username of ['Victim', 'Forgetful', 'Bystander', 'Parallel']) {
      const response = await limited.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username, password: PASSWORD },
      });
      expect(response.statusCode).toBe(201);
    }
  });
  afterAll(() => limited.close());

  const login = (username: string, password: string, remoteAddress: string) =>
    limited.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress });

  async function expectFailures(username: string, address: string, count: number) {
    for (let i = 0; i < count; i++)
      expect((await login(username, 'wrong-guess', address)).statusCode, `failure ${i + 1}`).toBe(401);
  }

  function expectRateLimited(response: Awaited<ReturnType<typeof login>>) {
    expect(response.statusCode).toBe(429);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(problemSchema.parse(response.json()).code).toBe('RATE_LIMITED');
    const retryAfter = Number(response.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(limited.config.RATE_LIMIT_WINDOW_MS / 1000);
    // Both limits that applied, once each, by their own names: the address's attempts and its failures.
    expect(response.headers['ratelimit-policy']).toBe(
      `"login";q=1000;w=60, "login-failures";q=${FAILURES_PER_PAIR};w=60`,
    );
    expect(response.headers.ratelimit).toMatch(
      new RegExp(`^"login";r=\\d+;t=\\d+, "login-failures";r=0;t=${retryAfter}$`),
    );
  }

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
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => login('parallel', 'wrong-guess', '198.51.100.4')),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([...Array(FAILURES_PER_PAIR).fill(401), ...Array(10 - FAILURES_PER_PAIR).fill(429)]);
  });
});
