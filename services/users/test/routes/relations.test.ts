import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem, generousLimits, type UsersHarness, usersHarness } from '../support.js';

/** Mutes and blocks: `PUT`/`DELETE /api/users/{id}/mute|block`, `GET /api/users/me/mutes|blocks` (src/routes/users). */
let harness: UsersHarness;
beforeAll(async () => (harness = await usersHarness(generousLimits)));
afterAll(() => harness.close());

const relationEvents = async (userId: string) =>
  (
    await harness.pool.query(
      "SELECT payload FROM outbox WHERE payload->>'type' LIKE 'user.%' AND payload->'data'->>'userId' = $1 ORDER BY created_at, payload->'data'->'revision'",
      [userId],
    )
  ).rows.map((row) => ({ type: row.payload.type as string, ...(row.payload.data as Record<string, unknown>) }));

describe.each([
  { kind: 'mute', state: 'muted', list: 'mutes', started: 'user.muted', ended: 'user.unmuted' },
  { kind: 'block', state: 'blocked', list: 'blocks', started: 'user.blocked', ended: 'user.unblocked' },
])('/api/users/{id}/$kind', ({ kind, state, list, started, ended }) => {
  it('starts and ends idempotently, by username or id, telling the other services once per change with a growing revision', async () => {
    const me = await harness.registered(`${kind}_er`);
    const other = await harness.registered(`${kind}_ee`);
    const call = (method: 'PUT' | 'DELETE', id: string) =>
      harness.app.inject({ method, url: `/api/users/${id}/${kind}`, headers: bearer(me.token) });

    for (const id of [other.user.username.toUpperCase(), other.user.id]) {
      const response = await call('PUT', id);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ [state]: true });
    }
    for (let i = 0; i < 2; i++) expect((await call('DELETE', other.user.id)).json()).toEqual({ [state]: false });
    expect((await call('PUT', other.user.username)).json()).toEqual({ [state]: true });

    const events = await relationEvents(me.user.id);
    expect(events.map(({ type, revision }) => [type, revision])).toEqual([
      [started, 1],
      [ended, 2],
      [started, 3],
    ]);
    expect(events[1]).toMatchObject({
      userId: me.user.id,
      targetId: other.user.id,
      [state]: false,
      muted: false,
      blocked: false,
    });
    expect(events[2]).toMatchObject({ [state]: true, lastUnblockedAt: kind === 'block' ? expect.any(String) : null });
  });

  it('needs a token, refuses the caller themself (400) and an unknown user (404), changing nothing', async () => {
    const me = await harness.registered(`${kind}_self`);
    expectProblem(await harness.app.inject({ method: 'PUT', url: `/api/users/${me.user.id}/${kind}` }), 401);
    for (const id of [me.user.id, me.user.username.toLowerCase(), 'me', 'ME']) {
      for (const method of ['PUT', 'DELETE'] as const) {
        expectProblem(
          await harness.app.inject({ method, url: `/api/users/${id}/${kind}`, headers: bearer(me.token) }),
          400,
        );
      }
    }
    for (const id of ['0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b', 'nobody_here', '%00']) {
      expectProblem(
        await harness.app.inject({ method: 'PUT', url: `/api/users/${id}/${kind}`, headers: bearer(me.token) }),
        404,
      );
    }
    expect(await relationEvents(me.user.id)).toEqual([]);
  });

  it(`lists the caller's ${list}, most recent first, paged with the totals`, async () => {
    const me = await harness.registered(`${kind}_lister`);
    const others = [];
    for (const name of ['a', 'b', 'c']) others.push((await harness.registered(`${kind}_listed_${name}`)).user);
    for (const other of others)
      await harness.app.inject({ method: 'PUT', url: `/api/users/${other.id}/${kind}`, headers: bearer(me.token) });
    await harness.app.inject({
      method: 'DELETE',
      url: `/api/users/${others[1]!.id}/${kind}`,
      headers: bearer(me.token),
    });
    // Someone else's have no part in the caller's list.
    const stranger = await harness.registered(`${kind}_stranger`);
    await harness.app.inject({
      method: 'PUT',
      url: `/api/users/${others[0]!.id}/${kind}`,
      headers: bearer(stranger.token),
    });

    const page = (query: string) =>
      harness.app.inject({ method: 'GET', url: `/api/users/me/${list}${query}`, headers: bearer(me.token) });
    expect((await page('')).json()).toEqual({
      users: [others[2], others[0]],
      pagination: { page: 1, limit: 20, total: 2, totalPages: 1, nextCursor: null },
    });
    const second = await page('?page=2&limit=1');
    expect(second.json()).toEqual({
      users: [others[0]],
      pagination: { page: 2, limit: 1, total: 2, totalPages: 2, nextCursor: null },
    });
    expect(second.headers.link).toContain('rel="prev"');
    expect((await page('?page=3&limit=1')).json().users).toEqual([]);

    // By cursor: the first page names the next, which ends the walk.
    const first = (await page('?limit=1')).json();
    expect(first.users).toEqual([others[2]]);
    const next = await page(`?limit=1&cursor=${first.pagination.nextCursor}`);
    expect(next.json()).toEqual({
      users: [others[0]],
      pagination: { page: null, limit: 1, total: 2, totalPages: 2, nextCursor: null },
    });
    expectProblem(await page('?limit=0'), 400);
    expectProblem(await page('?cursor=not-a-cursor'), 400);
    // A cursor of the other list is not one of this list's.
    const otherList = list === 'mutes' ? 'blocks' : 'mutes';
    expect(first.pagination.nextCursor).toEqual(expect.any(String));
    const foreign = await harness.app.inject({
      method: 'GET',
      url: `/api/users/me/${otherList}?cursor=${first.pagination.nextCursor}`,
      headers: bearer(me.token),
    });
    expectProblem(foreign, 400);
    expectProblem(await harness.app.inject({ method: 'GET', url: `/api/users/me/${list}` }), 401);
  });
});

it('keeps a mute and a block apart: ending one leaves the other', async () => {
  const me = await harness.registered('both_er');
  const other = await harness.registered('both_ee');
  const call = (method: 'PUT' | 'DELETE', kind: string) =>
    harness.app.inject({ method, url: `/api/users/${other.user.id}/${kind}`, headers: bearer(me.token) });
  await call('PUT', 'mute');
  await call('PUT', 'block');
  await call('DELETE', 'block');
  const events = await relationEvents(me.user.id);
  expect(events.at(-1)).toMatchObject({ type: 'user.unblocked', muted: true, blocked: false, revision: 3 });
  const mutes = await harness.app.inject({ method: 'GET', url: '/api/users/me/mutes', headers: bearer(me.token) });
  expect(mutes.json().users).toEqual([other.user]);
});
