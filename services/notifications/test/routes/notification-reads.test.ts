import { newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem, type NotificationsHarness, notificationsHarness, type TestUser } from '../support.js';
import { inboxCalls } from './inbox-calls.js';

let harness: NotificationsHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await notificationsHarness();
  ada = await harness.knownUser('Ada_Actor', 'https://cdn.example.com/ada.png');
});
afterAll(() => harness.close());

const { list, unreadCount, markRead, mentioned, idsOf } = inboxCalls(
  () => harness,
  () => ada,
);

describe('PATCH /api/notifications/read', () => {
  it('marks the caller’s notifications read and counts only those that changed', async () => {
    const bob = await harness.knownUser('Bob_Marks');
    await mentioned(bob, 3);
    const [a, b, c] = await idsOf(bob);
    const first = await markRead(bob, { notificationIds: [a, b, a] });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ message: 'Notifications marked as read', updated: 2 });
    // Already read, unknown: ignored.
    expect((await markRead(bob, { notificationIds: [a, b, c, newId()] })).json()).toEqual({
      message: 'Notifications marked as read',
      updated: 1,
    });
    expect((await markRead(bob, { notificationIds: [a] })).json().updated).toBe(0);
    expect((await list(bob)).json().data.map((n: { isRead: boolean }) => n.isRead)).toEqual([true, true, true]);
  });

  it('never changes another user’s notification, and answers as if it did not exist', async () => {
    const [bob, eve] = await Promise.all([harness.knownUser('Bob_Victim'), harness.knownUser('Eve_Attacker')]);
    await mentioned(bob, 2);
    const bobs = await idsOf(bob);
    const attempt = await markRead(eve, { notificationIds: bobs });
    const unknown = await markRead(eve, { notificationIds: [newId(), newId()] });
    expect(attempt.statusCode).toBe(200);
    expect(attempt.body).toBe(unknown.body);
    expect((await list(bob)).json().data.map((n: { isRead: boolean }) => n.isRead)).toEqual([false, false]);
    expect(await unreadCount(bob)).toBe(2);
  });

  it('counts each change once when two requests race on the same ids', async () => {
    const bob = await harness.knownUser('Bob_Races');
    await mentioned(bob, 10);
    const ids = await idsOf(bob);
    const results = await Promise.all([
      markRead(bob, { notificationIds: ids }),
      markRead(bob, { notificationIds: ids.slice(3) }),
    ]);
    expect(results.map((r) => r.json().updated).reduce((x, y) => x + y)).toBe(10);
    expect(await unreadCount(bob)).toBe(0);
  });

  it.each([
    ['no ids', { notificationIds: [] }],
    ['101 ids', { notificationIds: Array.from({ length: 101 }, () => newId()) }],
    ['an id that is not a UUID', { notificationIds: ['not-a-uuid'] }],
    ['a number for an id', { notificationIds: [42] }],
    ['ids as a string', { notificationIds: newId() }],
    ['no notificationIds', { ids: [newId()] }],
    ['null', null],
  ])('answers %s with 400', async (_case, payload) => {
    const bob = await harness.knownUser(`Bob_B${newId().slice(-6)}`);
    const problem = expectProblem(await markRead(bob, payload), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors?.length).toBeGreaterThan(0);
  });

  it('accepts exactly 100 ids', async () => {
    const bob = await harness.knownUser('Bob_Hundred');
    const response = await markRead(bob, { notificationIds: Array.from({ length: 100 }, () => newId()) });
    expect(response.json()).toEqual({ message: 'Notifications marked as read', updated: 0 });
  });

  it('answers malformed JSON, a missing body, other media types and oversized bodies with problems', async () => {
    const bob = await harness.knownUser('Bob_Bodies');
    const raw = (payload: string | undefined, contentType?: string) =>
      harness.app.inject({
        method: 'PATCH',
        url: '/api/notifications/read',
        ...(payload === undefined ? {} : { payload }),
        headers: { ...bearer(bob), ...(contentType ? { 'content-type': contentType } : {}) },
      });
    expectProblem(await raw('{"notificationIds":', 'application/json'), 400);
    expectProblem(await raw(undefined), 400);
    expectProblem(await raw('notificationIds=1', 'text/plain'), 415);
    expectProblem(
      await raw(JSON.stringify({ notificationIds: [newId()], padding: 'x'.repeat(70_000) }), 'application/json'),
      413,
    );
  });
});

describe('POST /api/notifications/read-all', () => {
  const readAll = (user: TestUser, payload?: object) =>
    harness.app.inject({
      method: 'POST',
      url: '/api/notifications/read-all',
      headers: bearer(user),
      ...(payload ? { payload } : {}),
    });

  it('marks every unread notification read, once', async () => {
    const dan = await harness.knownUser('Dan_ReadAll');
    await mentioned(dan, 3);
    const response = await readAll(dan);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Notifications marked as read', updated: 3 });
    expect(await unreadCount(dan)).toBe(0);
    expect((await readAll(dan, {})).json().updated).toBe(0);
  });

  it('with upTo, marks only those created at or before it: what the client has shown', async () => {
    const eli = await harness.knownUser('Eli_UpTo');
    await mentioned(eli, 5, { msApart: 1_000 });
    const newestFirst = await idsOf(eli);
    const response = await readAll(eli, { upTo: newestFirst[2] });
    expect(response.json().updated).toBe(3);
    const read = (await list(eli, '?limit=100')).json().data.map((n: { isRead: boolean }) => n.isRead);
    expect(read).toEqual([false, false, true, true, true]);
    expect(await unreadCount(eli)).toBe(2);
  });

  it('answers 404 for an upTo that is not one of the caller’s, 400 for one that is no id, and changes nothing', async () => {
    const fin = await harness.knownUser('Fin_UpTo');
    const gil = await harness.knownUser('Gil_UpTo');
    await mentioned(fin, 1);
    await mentioned(gil, 1);
    const [gils] = await idsOf(gil);
    expectProblem(await readAll(fin, { upTo: gils }), 404);
    expectProblem(await readAll(fin, { upTo: newId() }), 404);
    expectProblem(await readAll(fin, { upTo: 'latest' }), 400);
    const nullBody = await harness.app.inject({
      method: 'POST',
      url: '/api/notifications/read-all',
      headers: { ...bearer(fin), 'content-type': 'application/json' },
      payload: 'null',
    });
    expectProblem(nullBody, 400);
    expect(await unreadCount(fin)).toBe(1);
    expect(await unreadCount(gil)).toBe(1);
  });
});
