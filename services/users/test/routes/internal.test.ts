import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, generousLimits, type UsersHarness, usersHarness } from '../support.js';

/** The look-ups of the other services: `/internal/users/...` on the internal listener (src/routes/internal). */
let harness: UsersHarness;
beforeAll(async () => (harness = await usersHarness(generousLimits)));
afterAll(() => harness.close());

describe('/internal/users', () => {
  it('resolves several usernames at once, ignoring unknown ones', async () => {
    const a = await harness.registered('Internal_A');
    const b = await harness.registered('Internal_B');
    const response = await internalServerOf(harness.app).inject({
      method: 'GET',
      url: '/internal/users?usernames=internal_a,INTERNAL_B,nobody,internal_a',
    });
    expect(response.statusCode).toBe(200);
    const users = (response.json() as { users: { id: string }[] }).users;
    expect(users.map((u) => u.id).sort()).toEqual([a.user.id, b.user.id].sort());
  });

  it('returns a snapshot with its revision by id', async () => {
    const { user } = await harness.registered('Internal_C');
    const response = await internalServerOf(harness.app).inject({ method: 'GET', url: `/internal/users/${user.id}` });
    expect(response.json()).toEqual({ user: { ...user, revision: 0 } });
  });

  it('is not served on the public port at all', async () => {
    const { user } = await harness.registered('Internal_D');
    for (const url of [`/internal/users/${user.id}`, '/internal/users?usernames=internal_d']) {
      expectProblem(await harness.app.inject({ method: 'GET', url }), 404);
    }
  });

  it('is not in the public API document', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/auth/login',
      '/api/auth/logout',
      '/api/auth/logout-all',
      '/api/auth/refresh',
      '/api/auth/register',
      '/api/auth/sessions',
      '/api/auth/sessions/{id}',
      '/api/users/me',
      '/api/users/me/blocks',
      '/api/users/me/export',
      '/api/users/me/mutes',
      '/api/users/me/password',
      '/api/users/{id}',
      '/api/users/{id}/block',
      '/api/users/{id}/mute',
    ]);
  });
});
