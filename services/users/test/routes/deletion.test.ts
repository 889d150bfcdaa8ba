import { createEvent, ERASING_SERVICES, userErasedEvents } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  expectUnauthorized,
  generousLimits,
  type UsersHarness,
  usersHarness,
} from '../support.js';

/**
 * Account deletion in the users service (docs/api.md §11.2): `DELETE /api/users/me`, the tombstone, the confirmations.
 */
let harness: UsersHarness;
// Three failed logins per username and address, so that the count of the wrong passwords shows.
beforeAll(
  async () => (harness = await usersHarness({ ...generousLimits, LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '3' })),
);
afterAll(() => harness.close());

const remove = (token: string, payload: unknown) =>
  harness.app.inject({ method: 'DELETE', url: '/api/users/me', payload: payload as object, headers: bearer(token) });
const login = (username: string, password = 'password123') =>
  harness.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });

describe('DELETE /api/users/me', () => {
  it('is 401 without a token, 400 without a password', async () => {
    const ada = await harness.registered('del_ada');
    expectUnauthorized(
      await harness.app.inject({ method: 'DELETE', url: '/api/users/me', payload: { password: 'password123' } }),
      'TOKEN_MISSING',
    );
    expectProblem(await remove(ada.token, {}), 400);
  });

  it('counts a wrong password as a failed login, and refuses past the limit', async () => {
    const bob = await harness.registered('del_bob');
    for (let i = 0; i < 3; i += 1)
      expectUnauthorized(await remove(bob.token, { password: 'wrong password' }), undefined);
    expectProblem(await login('del_bob', 'wrong password'), 429);
    expect((await harness.app.inject({ method: 'GET', url: `/api/users/${bob.user.id}` })).statusCode).toBe(200);
  });

  it('makes a tombstone, ends every session, reserves the name and tells the services in one transaction', async () => {
    const cat = await harness.registered('Del_Cat', { avatarUrl: 'https://cdn.example.com/cat.png' });
    const other = await harness.registered('del_dan');
    await harness.app.inject({ method: 'PUT', url: `/api/users/${other.user.id}/block`, headers: bearer(cat.token) });
    await harness.app.inject({ method: 'PUT', url: `/api/users/${cat.user.id}/mute`, headers: bearer(other.token) });
    const response = await remove(cat.token, { password: 'password123' });
    expect([response.statusCode, response.json()]).toEqual([202, { message: 'Account deletion started' }]);

    const { rows } = await harness.pool.query(
      'SELECT username, password_hash, avatar_url, deleted_at IS NOT NULL AS deleted FROM users WHERE id = $1',
      [cat.user.id],
    );
    expect(rows).toEqual([{ username: 'Del_Cat', password_hash: null, avatar_url: null, deleted: true }]);
    for (const [table, column] of [
      ['user_relations', 'user_id'],
      ['user_relations', 'target_id'],
      ['sessions', 'user_id'],
      ['ended_sessions', 'user_id'],
      ['sessions_not_before', 'user_id'],
    ]) {
      expect(
        (await harness.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [cat.user.id]))
          .rows[0].n,
        table,
      ).toBe(0);
    }
    expectUnauthorized(
      await harness.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(cat.token) }),
      'ACCOUNT_DELETED',
    );
    // A token from before sessions names no session to refuse: the account's absence does.
    const legacy = harness.tokenFor({ id: cat.user.id, username: 'Del_Cat' });
    expectUnauthorized(
      await harness.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(legacy) }),
      'ACCOUNT_DELETED',
    );
    // The login is a wrong username or password's, reason and all: nobody learns that the name left.
    const [asDeleted, asNobody] = [await login('del_cat'), await login('del_nobody')];
    expect([asDeleted.statusCode, asDeleted.json().detail]).toEqual([asNobody.statusCode, asNobody.json().detail]);
    expectUnauthorized(asDeleted, undefined);
    expectProblem(await harness.app.inject({ method: 'GET', url: `/api/users/${cat.user.id}` }), 404);
    expectProblem(
      await harness.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username: 'DEL_CAT', password: 'password123' },
      }),
      409,
    );

    const events = await harness.published();
    const ended = events.find(
      (event) => event.type === 'user.session.ended' && (event.data as { userId: string }).userId === cat.user.id,
    );
    expect(ended?.data).toMatchObject({ reason: 'account_deleted', notBefore: null });
    const deleted = events.find((event) => event.type === 'user.deleted');
    expect(deleted?.data).toMatchObject({
      userId: cat.user.id,
      sessionIds: (ended!.data as { sessionIds: string[] }).sessionIds,
    });
  });

  it('answers 202 again to a retry once the deletion committed, whichever token of the account it comes with', async () => {
    const fay = await harness.registered('del_fay');
    const second = (await login('del_fay')).json() as { token: string };
    expect((await remove(fay.token, { password: 'password123' })).statusCode).toBe(202);
    // The first answer lost: the same request again, then one from the account's other session.
    for (const token of [fay.token, second.token]) {
      const retried = await remove(token, { password: 'password123' });
      expect([retried.statusCode, retried.json()]).toEqual([202, { message: 'Account deletion started' }]);
    }
    // Begun once: one tombstone, one user.deleted.
    const deleted = (await harness.published()).filter(
      (event) => event.type === 'user.deleted' && (event.data as { userId: string }).userId === fay.user.id,
    );
    expect(deleted).toHaveLength(1);
    // Every other route still refuses those tokens.
    expectUnauthorized(
      await harness.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(fay.token) }),
      'ACCOUNT_DELETED',
    );
  });

  it('answers 202 to a retry on an instance that has not heard of the deletion yet', async () => {
    const gus = await harness.registered('del_gus');
    // The deletion as another instance committed it: the tombstone, which this process has not heard of.
    await harness.pool.query('UPDATE users SET deleted_at = now(), password_hash = NULL WHERE id = $1', [gus.user.id]);
    const retried = await remove(gus.token, { password: 'password123' });
    expect(retried.statusCode).toBe(202);
  });

  it('still refuses a token whose session ended, of an account not deleted', async () => {
    const hal = await harness.registered('del_hal');
    await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(hal.token) });
    expectUnauthorized(await remove(hal.token, { password: 'password123' }), 'SESSION_ENDED');
    expect(await harness.parts.deletions.find(hal.user.id)).toBeUndefined();
  });

  it('completes once every erasing service has confirmed, however they come; counts as stalled when old', async () => {
    const eve = await harness.registered('del_eve');
    expect((await remove(eve.token, { password: 'password123' })).statusCode).toBe(202);
    const confirm = (service: (typeof ERASING_SERVICES)[number]) =>
      harness.deliver(
        createEvent(
          userErasedEvents[service],
          { userId: eve.user.id, service, erasedAt: new Date().toISOString() },
          { producer: service, correlationId: 'c' },
        ),
      );
    // Three at once, and one of them twice: each counts once.
    await Promise.all([confirm('content'), confirm('comments'), confirm('comments'), confirm('collections')]);
    expect(await harness.parts.deletions.find(eve.user.id)).toMatchObject({
      erasedBy: ['collections', 'comments', 'content'],
      completedAt: null,
    });
    await harness.pool.query("UPDATE users SET deleted_at = deleted_at - interval '2 hours' WHERE id = $1", [
      eve.user.id,
    ]);
    expect(await harness.parts.deletions.incompleteOlderThan(3_600)).toBe(1);
    await confirm('notifications');
    expect(await harness.parts.deletions.find(eve.user.id)).toMatchObject({
      erasedBy: [...ERASING_SERVICES].sort(),
      completedAt: expect.any(Date),
    });
    expect(await harness.parts.deletions.incompleteOlderThan(3_600)).toBe(0);
  });
});
