import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem, generousLimits, type UsersHarness, usersHarness } from '../support.js';

/** Profiles: `/api/users/...` (src/routes/users). */
let harness: UsersHarness;
beforeAll(async () => (harness = await usersHarness(generousLimits)));
afterAll(() => harness.close());

describe('GET /api/users/{id}', () => {
  it('finds a user by id and by username in any case', async () => {
    const { user } = await harness.registered('Find_Me');
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
    const { user, token } = await harness.registered('Avatar_Changer');
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
    const { token } = await harness.registered('Bad_Avatar');
    for (const payload of [{ avatarUrl: 'ftp://x/y' }, {}, { avatarUrl: 42 }]) {
      const response = await harness.app.inject({
        method: 'PATCH',
        url: '/api/users/me',
        payload,
        headers: bearer(token),
      });
      expectProblem(response, 400);
    }
  });
});
