import { problemSchema } from '@recipes/contracts';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsersHarness, usersHarness } from './support.js';

let harness: UsersHarness;
beforeAll(async () => {
  harness = await usersHarness({
    LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '1000',
    LOGIN_FAILURES_PER_ADDRESS: '1000',
    LOGIN_LIMIT_PER_ADDRESS: '1000',
    REGISTER_LIMIT_PER_ADDRESS: '1000',
  });
});
afterAll(() => harness.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'POST', url, payload: payload as object, headers });
const register = (body: Record<string, unknown>) => post('/api/auth/register', body);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function registered(username: string, extra: Record<string, unknown> = {}) {
  const response = await register({ username, password: 'password123', ...extra });
  expect(response.statusCode).toBe(201);
  return response.json() as { user: { id: string; username: string; avatarUrl: string | null }; token: string };
}

function expectProblem(response: { statusCode: number; json(): unknown }, status: number) {
  expect(response.statusCode).toBe(status);
  return problemSchema.parse(response.json());
}

async function outboxTypes(): Promise<string[]> {
  const { rows } = await harness.pool.query<{ type: string }>('SELECT type FROM outbox ORDER BY created_at, id');
  return rows.map((row) => row.type);
}

describe('POST /api/auth/register', () => {
  it('creates the user, answers with the author shape and a working token', async () => {
    const { user, token } = await registered('Ada_Lovelace');
    expect(user).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), username: 'Ada_Lovelace', avatarUrl: null });
    const me = await harness.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ user });
  });

  it('stores only a salted slow hash of the password', async () => {
    const { user } = await registered('hash_check', { password: 'my secret words' });
    const { rows } = await harness.pool.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(rows[0].password_hash).not.toContain('my secret words');
  });

  it('keeps an avatar URL', async () => {
    const { user } = await registered('with_avatar', { avatarUrl: 'https://cdn.example.com/a.png' });
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
    await registered('Grace');
    const before = await outboxTypes();
    expect(expectProblem(await register({ username: 'gRACE', password: 'password123' }), 409).code).toBe('CONFLICT');
    expect(await outboxTypes()).toEqual(before);
  });

  it('writes one user.created event in the same transaction', async () => {
    const { user } = await registered('evented');
    const { rows } = await harness.pool.query("SELECT payload FROM outbox WHERE payload->'data'->>'id' = $1", [user.id]);
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
  beforeAll(() => registered('Login_User'));

  it('logs in with the username in any case', async () => {
    const response = await post('/api/auth/login', { username: 'login_user', password: 'password123' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ user: { username: 'Login_User' }, token: expect.any(String) });
  });

  it('gives the same 401 for a wrong password and an unknown user', async () => {
    const wrongPassword = expectProblem(await post('/api/auth/login', { username: 'Login_User', password: 'nope-nope' }), 401);
    const unknownUser = expectProblem(await post('/api/auth/login', { username: 'nobody_here', password: 'password123' }), 401);
    expect(wrongPassword.detail).toBe(unknownUser.detail);
    expect(wrongPassword.code).toBe('UNAUTHORIZED');
  });
});

describe('GET /api/users/{id}', () => {
  it('finds a user by id and by username in any case', async () => {
    const { user } = await registered('Find_Me');
    for (const id of [user.id, 'find_me', 'FIND_ME']) {
      const response = await harness.app.inject({ method: 'GET', url: `/api/users/${id}` });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ user });
    }
  });

  it.each(['0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b', 'no_such_user', "x' OR '1'='1", '%00', 'a'.repeat(100)])(
    'answers 404 for %j',
    async (id) => {
      expectProblem(await harness.app.inject({ method: 'GET', url: `/api/users/${encodeURIComponent(id)}` }), 404);
    },
  );
});

describe('/api/users/me', () => {
  it('needs a token', async () => {
    expectProblem(await harness.app.inject({ method: 'GET', url: '/api/users/me' }), 401);
    // Authentication is checked before the body is validated.
    expectProblem(await harness.app.inject({ method: 'PATCH', url: '/api/users/me', payload: { avatarUrl: 5 } }), 401);
  });

  it('changes the avatar, bumps the revision and tells the other services', async () => {
    const { user, token } = await registered('Avatar_Changer');
    const patch = (avatarUrl: unknown) =>
      harness.app.inject({ method: 'PATCH', url: '/api/users/me', payload: { avatarUrl }, headers: bearer(token) });

    const changed = await patch('https://cdn.example.com/new.png');
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ user: { ...user, avatarUrl: 'https://cdn.example.com/new.png' } });
    expect((await patch(null)).json()).toEqual({ user: { ...user, avatarUrl: null } });

    const { rows } = await harness.pool.query(
      "SELECT payload FROM outbox WHERE payload->>'type' = 'user.updated' AND payload->'data'->>'id' = $1 ORDER BY created_at",
      [user.id],
    );
    expect(rows.map((row) => row.payload.data)).toEqual([
      { id: user.id, username: 'Avatar_Changer', avatarUrl: 'https://cdn.example.com/new.png', revision: 1 },
      { id: user.id, username: 'Avatar_Changer', avatarUrl: null, revision: 2 },
    ]);
  });

  it('rejects a bad avatar with 400', async () => {
    const { token } = await registered('Bad_Avatar');
    for (const payload of [{ avatarUrl: 'ftp://x/y' }, {}, { avatarUrl: 42 }]) {
      const response = await harness.app.inject({ method: 'PATCH', url: '/api/users/me', payload, headers: bearer(token) });
      expectProblem(response, 400);
    }
  });
});

describe('/internal/users', () => {
  it('resolves several usernames at once, ignoring unknown ones', async () => {
    const a = await registered('Internal_A');
    const b = await registered('Internal_B');
    const response = await internalServerOf(harness.app).inject({ method: 'GET', url: '/internal/users?usernames=internal_a,INTERNAL_B,nobody,internal_a' });
    expect(response.statusCode).toBe(200);
    const users = (response.json() as { users: { id: string }[] }).users;
    expect(users.map((u) => u.id).sort()).toEqual([a.user.id, b.user.id].sort());
  });

  it('returns a snapshot with its revision by id', async () => {
    const { user } = await registered('Internal_C');
    const response = await internalServerOf(harness.app).inject({ method: 'GET', url: `/internal/users/${user.id}` });
    expect(response.json()).toEqual({ user: { ...user, revision: 0 } });
  });

  it('is not served on the public port at all', async () => {
    const { user } = await registered('Internal_D');
    for (const url of [`/internal/users/${user.id}`, '/internal/users?usernames=internal_d']) {
      expectProblem(await harness.app.inject({ method: 'GET', url }), 404);
    }
  });

  it('is not in the public API document', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/auth/login',
      '/api/auth/register',
      '/api/users/me',
      '/api/users/{id}',
    ]);
  });
});
