import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  expectUnauthorized,
  generousLimits,
  type UsersHarness,
  usersHarness,
} from '../support.js';

/** Sessions (docs/api.md §11.1): `/api/auth/refresh`, logout, the list of sessions, ending one (src/routes/auth). */
let harness: UsersHarness;
beforeAll(async () => (harness = await usersHarness({ ...generousLimits, REFRESH_LIMIT_PER_SESSION: '1000' })));
afterAll(() => harness.close());

interface Tokens {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({
    method: 'POST',
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
    headers,
  });
const login = async (username: string, userAgent = 'test-agent', password = 'password123') => {
  const response = await post('/api/auth/login', { username, password }, { 'user-agent': userAgent });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Tokens & { user: { id: string } };
};
const refresh = (refreshToken: unknown) => post('/api/auth/refresh', { refreshToken });
const refreshed = async (refreshToken: string) => {
  const response = await refresh(refreshToken);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Tokens;
};
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const sessionOf = (tokens: Tokens) => claimsOf(tokens.token).sid as string;
const me = (token: string) => harness.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) });
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Moves the refresh tokens of `sessionId` back in time, as if `seconds` had passed since each was issued. */
const age = (sessionId: string, seconds: number) =>
  harness.pool.query(
    `UPDATE refresh_tokens SET issued_at = issued_at - make_interval(secs => $2) WHERE session_id = $1`,
    [sessionId, seconds],
  );

async function endedEvents() {
  const events = await harness.published();
  return events
    .filter((event) => event.type === 'user.session.ended')
    .map((event) => event.data as Record<string, unknown>);
}

describe('register and login open a session', () => {
  it('answer an access token naming its session, its lifetime, and an opaque refresh token of 256 bits', async () => {
    const registered = await post('/api/auth/register', { username: 'sess_ada', password: 'password123' });
    expect(registered.statusCode).toBe(201);
    const body = registered.json() as Tokens;
    expect(body).toEqual({
      user: expect.any(Object),
      token: expect.any(String),
      refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresIn: 900,
    });
    const claims = claimsOf(body.token);
    expect(claims.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);
    const second = await login('sess_ada');
    expect(sessionOf(second)).not.toBe(claims.sid);
    expect(second.refreshToken).not.toBe(body.refreshToken);
  });

  it('store the refresh token only as its SHA-256', async () => {
    const tokens = await login('sess_ada');
    const { rows } = await harness.pool.query('SELECT * FROM refresh_tokens WHERE session_id = $1', [
      sessionOf(tokens),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toEqual(sha256(tokens.refreshToken));
    const stored = JSON.stringify(
      (await harness.pool.query('SELECT * FROM sessions WHERE id = $1', [sessionOf(tokens)])).rows,
    );
    expect(stored).not.toContain(tokens.refreshToken);
    expect(stored).not.toContain(Buffer.from(tokens.refreshToken, 'base64url').toString('hex'));
  });
});

describe('POST /api/auth/refresh', () => {
  it('rotates: new tokens of the same session, the old refresh token replaced', async () => {
    const first = await login('sess_ada');
    const next = await refreshed(first.refreshToken);
    expect(next.expiresIn).toBe(900);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(sessionOf(next)).toBe(sessionOf(first));
    expect((await me(next.token)).statusCode).toBe(200);
    const third = await refreshed(next.refreshToken);
    expect(third.refreshToken).not.toBe(next.refreshToken);
  });

  it('gives the same answer to the same token presented again within 10 s (two tabs), and the successor works on', async () => {
    const first = await login('sess_ada');
    const tabA = await refreshed(first.refreshToken);
    const tabB = await refreshed(first.refreshToken);
    expect(tabB).toEqual(tabA);
    const later = await refreshed(tabB.refreshToken);
    expect(sessionOf(later)).toBe(sessionOf(first));
  });

  it('takes the predecessor presented after the grace for a replay: the session ends, its latest token too', async () => {
    const first = await login('sess_ada');
    const next = await refreshed(first.refreshToken);
    await harness.published();
    await age(sessionOf(first), 11);
    expectUnauthorized(await refresh(first.refreshToken), 'REFRESH_TOKEN_REUSED');
    // The session the replay ended: its latest refresh token, and any presented again, say so too.
    expectUnauthorized(await refresh(next.refreshToken), 'REFRESH_TOKEN_REUSED');
    expectUnauthorized(await refresh(first.refreshToken), 'REFRESH_TOKEN_REUSED');
    // Its access tokens are refused as any ended session's.
    expectUnauthorized(await me(next.token), 'SESSION_ENDED');
    const [ended, ...more] = await endedEvents();
    expect(more).toEqual([]);
    expect(ended).toMatchObject({
      userId: first.user.id,
      sessionIds: [sessionOf(first)],
      notBefore: null,
      reason: 'reuse',
    });
  });

  it('gives an older token presented again within 10 s of its first use the answer it got then; later, it ends the session', async () => {
    const first = await login('sess_ada');
    const second = await refreshed(first.refreshToken);
    const third = await refreshed(second.refreshToken);
    expect(await refreshed(first.refreshToken)).toEqual(second);
    expect(await refreshed(second.refreshToken)).toEqual(third);
    await age(sessionOf(first), 11);
    expectProblem(await refresh(first.refreshToken), 401);
    expectProblem(await refresh(third.refreshToken), 401);
  });

  it('refuses an unknown token, and an ended, expired or idle session’s, with 401', async () => {
    expectUnauthorized(await refresh('x'.repeat(43)), 'TOKEN_INVALID');
    const expired = await login('sess_ada');
    await harness.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 s' WHERE id = $1`, [
      sessionOf(expired),
    ]);
    expectUnauthorized(await refresh(expired.refreshToken), 'SESSION_ENDED');
    // Within an access token's lifetime of its end, no more tokens: none would outlive the session.
    const ending = await login('sess_ada');
    await harness.pool.query(`UPDATE sessions SET expires_at = now() + interval '899 s' WHERE id = $1`, [
      sessionOf(ending),
    ]);
    expectUnauthorized(await refresh(ending.refreshToken), 'SESSION_ENDED');
    const lasting = await login('sess_ada');
    await harness.pool.query(`UPDATE sessions SET expires_at = now() + interval '905 s' WHERE id = $1`, [
      sessionOf(lasting),
    ]);
    expect((await refresh(lasting.refreshToken)).statusCode).toBe(200);
    const idle = await login('sess_ada');
    await harness.pool.query(`UPDATE sessions SET last_used_at = now() - interval '14 days 1 s' WHERE id = $1`, [
      sessionOf(idle),
    ]);
    expectUnauthorized(await refresh(idle.refreshToken), 'SESSION_ENDED');
  });

  it.each([
    ['no body field', {}],
    ['a number', { refreshToken: 42 }],
    ['an empty string', { refreshToken: '' }],
    ['a string over 512 characters', { refreshToken: 'x'.repeat(513) }],
  ])('refuses %s with 400', async (_case, body) => {
    expect(expectProblem(await post('/api/auth/refresh', body), 400).code).toBe('VALIDATION_ERROR');
  });

  it('refuses a body that is not JSON with 400', async () => {
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400);
  });
});

describe('the limit on refreshes of one session', () => {
  let limited: UsersHarness;
  beforeAll(async () => {
    limited = await usersHarness({ ...generousLimits, REFRESH_LIMIT_PER_SESSION: '3' });
    await limited.registered('limited_ada');
  });
  afterAll(() => limited.close());

  it('refuses the refresh past it with 429 and Retry-After; another session is not touched; the grace answer is not counted', async () => {
    const loginTo = async () =>
      (
        await limited.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { username: 'limited_ada', password: 'password123' },
        })
      ).json() as Tokens;
    const refreshOn = (token: string) =>
      limited.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: token } });
    let tokens = await loginTo();
    for (let i = 0; i < 3; i += 1) {
      const previous = tokens.refreshToken;
      tokens = (await refreshOn(previous)).json() as Tokens;
      expect((await refreshOn(previous)).json()).toEqual(tokens);
    }
    const refused = await refreshOn(tokens.refreshToken);
    expectProblem(refused, 429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await refreshOn((await loginTo()).refreshToken)).statusCode).toBe(200);
  });
});

describe('logout, logout-all, the list of sessions, ending one', () => {
  it('logout ends the caller’s session only', async () => {
    await post('/api/auth/register', { username: 'sess_bob', password: 'password123' });
    const phone = await login('sess_bob');
    const laptop = await login('sess_bob');
    await harness.published();
    const response = await post('/api/auth/logout', undefined, bearer(phone.token));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Logged out' });
    expectUnauthorized(await refresh(phone.refreshToken), 'SESSION_ENDED');
    expect((await refresh(laptop.refreshToken)).statusCode).toBe(200);
    expect(await endedEvents()).toEqual([
      expect.objectContaining({
        userId: phone.user.id,
        sessionIds: [sessionOf(phone)],
        notBefore: null,
        reason: 'logout',
      }),
    ]);
  });

  it('refuses the ended session’s access token at once, here and after a restart; tokens from before sessions work on', async () => {
    const phone = await login('sess_bob');
    const laptop = await login('sess_bob');
    expect((await me(phone.token)).statusCode).toBe(200);
    await post('/api/auth/logout', undefined, bearer(phone.token));
    expect(expectUnauthorized(await me(phone.token), 'SESSION_ENDED').detail).toBe('The session has ended');
    expect((await me(laptop.token)).statusCode).toBe(200);
    const restarted = await harness.anotherApp({});
    expectUnauthorized(
      await restarted.inject({ method: 'GET', url: '/api/users/me', headers: bearer(phone.token) }),
      'SESSION_ENDED',
    );
    expect(
      (await restarted.inject({ method: 'GET', url: '/api/users/me', headers: bearer(laptop.token) })).statusCode,
    ).toBe(200);
    const legacy = harness.tokenFor({ id: phone.user.id, username: 'sess_bob' });
    expect((await me(legacy)).statusCode).toBe(200);
  });

  it('logout needs a token', async () => {
    expectUnauthorized(await post('/api/auth/logout'), 'TOKEN_MISSING');
    expectUnauthorized(await post('/api/auth/logout-all'), 'TOKEN_MISSING');
  });

  it('logout-all ends every session of the caller, with a not-before time, and no other user’s', async () => {
    const registration = (
      await post('/api/auth/register', { username: 'sess_cy', password: 'password123' })
    ).json() as Tokens;
    const one = await login('sess_cy');
    const two = await login('sess_cy');
    const someoneElse = await login('sess_bob');
    await harness.published();
    expect((await post('/api/auth/logout-all', undefined, bearer(one.token))).statusCode).toBe(200);
    expectUnauthorized(await refresh(one.refreshToken), 'SESSION_ENDED');
    expectUnauthorized(await refresh(two.refreshToken), 'SESSION_ENDED');
    expectUnauthorized(await me(two.token), 'SESSION_ENDED');
    expect((await refresh(someoneElse.refreshToken)).statusCode).toBe(200);
    const [ended] = await endedEvents();
    expect(ended).toMatchObject({ userId: one.user.id, reason: 'logout_all', notBefore: expect.any(String) });
    expect((ended!.sessionIds as string[]).sort()).toEqual(
      [sessionOf(registration), sessionOf(one), sessionOf(two)].sort(),
    );
  });

  it('lists the live sessions, most recently used first, marking the caller’s', async () => {
    await post(
      '/api/auth/register',
      { username: 'sess_dee', password: 'password123' },
      { 'user-agent': 'registration' },
    );
    const phone = await login('sess_dee', 'Phone/1.0');
    const laptop = await login('sess_dee', 'Laptop/2.0');
    const gone = await login('sess_dee', 'Gone/0');
    await post('/api/auth/logout', undefined, bearer(gone.token));
    await refreshed(phone.refreshToken);
    const response = await harness.app.inject({
      method: 'GET',
      url: '/api/auth/sessions',
      headers: bearer(laptop.token),
    });
    expect(response.statusCode).toBe(200);
    const { sessions } = response.json() as {
      sessions: { id: string; userAgent: string; current: boolean; createdAt: string; lastUsedAt: string }[];
    };
    expect(sessions.map((s) => [s.userAgent, s.current])).toEqual([
      ['Phone/1.0', false],
      ['Laptop/2.0', true],
      ['registration', false],
    ]);
    expect(sessions[1]!.id).toBe(sessionOf(laptop));
    expect(Date.parse(sessions[0]!.lastUsedAt)).toBeGreaterThan(Date.parse(sessions[0]!.createdAt));
  });

  it('ends one of the caller’s sessions by id; another user’s, an unknown or malformed id is 404', async () => {
    await post('/api/auth/register', { username: 'sess_eve', password: 'password123' });
    const mine = await login('sess_eve');
    const other = await login('sess_eve');
    const bobs = await login('sess_bob');
    const end = (id: string, token = mine.token) =>
      harness.app.inject({ method: 'DELETE', url: `/api/auth/sessions/${id}`, headers: bearer(token) });
    expectProblem(await end(sessionOf(bobs)), 404);
    expectProblem(await end('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b'), 404);
    expectProblem(await end('not-a-uuid'), 404);
    expect((await refresh(bobs.refreshToken)).statusCode).toBe(200);
    const response = await end(sessionOf(other));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Session ended' });
    expectUnauthorized(await refresh(other.refreshToken), 'SESSION_ENDED');
    expectUnauthorized(await me(other.token), 'SESSION_ENDED');
    expectProblem(await end(sessionOf(other)), 404);
    expectUnauthorized(
      await harness.app.inject({ method: 'DELETE', url: `/api/auth/sessions/${sessionOf(other)}` }),
      'TOKEN_MISSING',
    );
  });
});

describe('PUT /api/users/me/password', () => {
  const change = (token: string, body: unknown) =>
    harness.app.inject({
      method: 'PUT',
      url: '/api/users/me/password',
      payload: body as object,
      headers: bearer(token),
    });

  it('changes the password and ends every other session of the user, not the caller’s', async () => {
    const registration = (
      await post('/api/auth/register', { username: 'sess_fay', password: 'password123' })
    ).json() as Tokens;
    const caller = await login('sess_fay');
    const other = await login('sess_fay');
    await harness.published();
    const response = await change(caller.token, { currentPassword: 'password123', newPassword: 'a new passphrase' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: 'Password changed' });
    expectUnauthorized(await refresh(other.refreshToken), 'SESSION_ENDED');
    expectUnauthorized(await me(other.token), 'SESSION_ENDED');
    expect((await me(caller.token)).statusCode).toBe(200);
    expect((await refresh(caller.refreshToken)).statusCode).toBe(200);
    const [ended, ...more] = await endedEvents();
    expect(more).toEqual([]);
    expect(ended).toMatchObject({ notBefore: null, reason: 'password_changed' });
    expect((ended!.sessionIds as string[]).sort()).toEqual([sessionOf(registration), sessionOf(other)].sort());
    expectUnauthorized(await post('/api/auth/login', { username: 'sess_fay', password: 'password123' }), undefined);
    await login('sess_fay', 'x', 'a new passphrase');
  });

  it('refuses a wrong current password with 401 and changes nothing', async () => {
    await post('/api/auth/register', { username: 'sess_gus', password: 'password123' });
    const caller = await login('sess_gus');
    const other = await login('sess_gus');
    // No token was at fault: no reason, and the plain challenge (docs/api.md §2). The session goes on.
    const refused = await change(caller.token, { currentPassword: 'wrong password', newPassword: 'a new passphrase' });
    expectUnauthorized(refused, undefined);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="recipes"');
    expect((await me(caller.token)).statusCode).toBe(200);
    expect((await refresh(other.refreshToken)).statusCode).toBe(200);
    await login('sess_gus');
  });

  it.each([
    ['a short new password', { currentPassword: 'password123', newPassword: 'short' }],
    ['no current password', { newPassword: 'a new passphrase' }],
    ['a number', { currentPassword: 'password123', newPassword: 12345678 }],
  ])('refuses %s with 400', async (_case, body) => {
    await post('/api/auth/register', { username: 'sess_hal', password: 'password123' });
    const caller = await login('sess_hal');
    expectProblem(await change(caller.token, body), 400);
  });

  it('needs a token', async () => {
    const response = await harness.app.inject({
      method: 'PUT',
      url: '/api/users/me/password',
      payload: { currentPassword: 'password123', newPassword: 'a new passphrase' },
    });
    expectProblem(response, 401);
  });
});

describe('a wrong current password counts as a failed login', () => {
  let strict: UsersHarness;
  beforeAll(async () => {
    strict = await usersHarness({
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '2',
      LOGIN_FAILURES_PER_ADDRESS: '1000',
      LOGIN_LIMIT_PER_ADDRESS: '1000',
    });
    await strict.registered('strict_ada');
  });
  afterAll(() => strict.close());

  it('so two wrong ones leave logins from that address refused with 429', async () => {
    const { token } = (
      await strict.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'strict_ada', password: 'password123' },
      })
    ).json() as Tokens;
    const wrong = () =>
      strict.app.inject({
        method: 'PUT',
        url: '/api/users/me/password',
        payload: { currentPassword: 'nope nope', newPassword: 'a new passphrase' },
        headers: bearer(token),
      });
    expectProblem(await wrong(), 401);
    expectProblem(await wrong(), 401);
    expectProblem(
      await strict.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'strict_ada', password: 'password123' },
      }),
      429,
    );
  });
});

describe('sessions that are over', () => {
  it('go from the tables a week after they ended, expired or went idle, with their refresh tokens; live ones stay', async () => {
    await post('/api/auth/register', { username: 'sess_old', password: 'password123' });
    const [ended, expired, idle, live] = [
      await login('sess_old'),
      await login('sess_old'),
      await login('sess_old'),
      await login('sess_old'),
    ];
    await post('/api/auth/logout', undefined, bearer(ended.token));
    await harness.pool.query(`UPDATE sessions SET ended_at = now() - interval '8 days' WHERE id = $1`, [
      sessionOf(ended),
    ]);
    await harness.pool.query(`UPDATE sessions SET expires_at = now() - interval '8 days' WHERE id = $1`, [
      sessionOf(expired),
    ]);
    await harness.pool.query(`UPDATE sessions SET last_used_at = now() - interval '22 days' WHERE id = $1`, [
      sessionOf(idle),
    ]);
    expect(await harness.parts.sessions.sweep()).toBeGreaterThanOrEqual(2);
    const { rows } = await harness.pool.query<{ id: string }>('SELECT id FROM sessions WHERE id = ANY($1)', [
      [ended, expired, idle, live].map(sessionOf),
    ]);
    expect(rows.map((row) => row.id)).toEqual([sessionOf(live)]);
    const { rows: tokens } = await harness.pool.query('SELECT 1 FROM refresh_tokens WHERE session_id = ANY($1)', [
      [expired, idle].map(sessionOf),
    ]);
    expect(tokens).toEqual([]);
    expect((await refresh(live.refreshToken)).statusCode).toBe(200);
  });
});

describe('the limit on live sessions per user', () => {
  let capped: UsersHarness;
  beforeAll(async () => {
    capped = await usersHarness({ ...generousLimits, SESSIONS_PER_USER: '2' });
  });
  afterAll(() => capped.close());

  it('ends the least recently used session at a login past it, and tells the other services', async () => {
    const signIn = async () =>
      (
        await capped.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { username: 'capped_ada', password: 'password123' },
        })
      ).json() as Tokens;
    const registration = (
      await capped.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'capped_ada', password: 'password123' },
      })
    ).json() as Tokens;
    const second = await signIn();
    // The registration's session is used again, so the second is now the least recently used.
    const refreshedRegistration = (
      await capped.app.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        payload: { refreshToken: registration.refreshToken },
      })
    ).json() as Tokens;
    await capped.published();
    const third = await signIn();
    const status = async (tokens: Tokens) =>
      (
        await capped.app.inject({
          method: 'POST',
          url: '/api/auth/refresh',
          payload: { refreshToken: tokens.refreshToken },
        })
      ).statusCode;
    expect(await status(second)).toBe(401);
    expect(
      (await capped.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(second.token) })).statusCode,
    ).toBe(401);
    expect(await status(refreshedRegistration)).toBe(200);
    expect(await status(third)).toBe(200);
    const ends = (await capped.published())
      .filter((event) => event.type === 'user.session.ended')
      .map((event) => event.data);
    expect(ends).toEqual([
      expect.objectContaining({ sessionIds: [sessionOf(second)], reason: 'too_many_sessions', notBefore: null }),
    ]);
  });
});
