import { commentMentionDeleted, createEvent, listCursor, newId, userUpdated } from '@recipes/contracts';
import { pagesAtOdds, readWhileWriting } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationCursor } from '../../src/schemas.js';
import { bearer, expectProblem, mentionEvent, type NotificationsHarness, notificationsHarness, snapshotOf, tagEvent, type TestUser } from '../support.js';

let harness: NotificationsHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await notificationsHarness();
  ada = await harness.knownUser('Ada_Actor', 'https://cdn.example.com/ada.png');
});
afterAll(() => harness.close());

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const list = (user: TestUser, query = '') => harness.app.inject({ method: 'GET', url: `/api/notifications${query}`, headers: bearer(user) });
const unreadCount = async (user: TestUser) =>
  (await harness.app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: bearer(user) })).json().count as number;
const markRead = (user: TestUser, payload: unknown) =>
  harness.app.inject({ method: 'PATCH', url: '/api/notifications/read', payload: payload as object, headers: bearer(user) });

/** `count` mentions of `user` by ada, `msApart` milliseconds apart; returns their events, oldest first. */
async function mentioned(user: TestUser, count: number, { msApart = 1, start = Date.parse('2026-01-01T00:00:00.000Z') } = {}) {
  const events = Array.from({ length: count }, (_, i) => mentionEvent(ada, user, 'recipe_comment', { createdAt: new Date(start + i * msApart).toISOString() }));
  for (const event of events) await harness.deliver(event);
  return events;
}

async function idsOf(user: TestUser, query = '?limit=100'): Promise<string[]> {
  return (await list(user, query)).json().data.map((n: { id: string }) => n.id);
}

describe('GET /api/notifications', () => {
  it('shows a mention and a tag in the shape of docs/api.md §7, newest first', async () => {
    const bob = await harness.knownUser('Bob_Shape');
    const mention = mentionEvent(ada, bob, 'collection_comment', { createdAt: '2026-03-01T10:00:00.000Z' });
    const tag = tagEvent(ada, bob, 'post', { createdAt: '2026-03-01T11:00:00.000Z' });
    await harness.deliver(mention);
    await harness.deliver(tag);

    const response = await list(bob);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    const actor = { id: ada.id, username: 'Ada_Actor', avatarUrl: 'https://cdn.example.com/ada.png' };
    expect(body).toEqual({
      data: [
        {
          id: expect.any(String),
          type: 'tag_post',
          groupKey: `tag_post:${tag.data.contentId}`,
          actor,
          contentType: 'post',
          contentId: tag.data.contentId,
          isRead: false,
          createdAt: '2026-03-01T11:00:00.000Z',
        },
        {
          id: expect.any(String),
          type: 'mention_collection_comment',
          groupKey: `mention_collection_comment:${mention.data.targetId}`,
          actor,
          contentType: 'collection',
          contentId: mention.data.targetId,
          commentId: mention.data.commentId,
          isRead: false,
          createdAt: '2026-03-01T10:00:00.000Z',
        },
      ],
      pagination: { page: 1, limit: 20, total: 2, totalPages: 1, nextCursor: null },
    });
    expect(Object.keys(body.data[0])).not.toContain('commentId');
    for (const notification of body.data) {
      expect(notification.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(notification.createdAt).toMatch(ISO_MILLIS);
    }
  });

  it('pages 20 by default, clamps the limit to 100, and answers past the end with the true totals', async () => {
    const bob = await harness.knownUser('Bob_Pages');
    await mentioned(bob, 105);
    const first = (await list(bob)).json();
    expect(first.data).toHaveLength(20);
    expect(first.pagination).toEqual({ page: 1, limit: 20, total: 105, totalPages: 6, nextCursor: expect.any(String) });
    const clamped = (await list(bob, '?limit=1000')).json();
    expect(clamped.data).toHaveLength(100);
    expect(clamped.pagination).toEqual({ page: 1, limit: 100, total: 105, totalPages: 2, nextCursor: expect.any(String) });
    const last = (await list(bob, '?page=2&limit=100')).json();
    expect(last.data).toHaveLength(5);
    expect((await list(bob, '?page=9')).json()).toEqual({ data: [], pagination: { page: 9, limit: 20, total: 105, totalPages: 6, nextCursor: null } });
  });

  it('answers each page from one snapshot while notifications arrive and are retracted', async () => {
    const cleo = await harness.knownUser('Cleo_Churn');
    const live = await mentioned(cleo, 20);
    // Another client's doing: the oldest mention taken back, then a new one made, over and over.
    const churn = async () => {
      for (let round = 0; round < 40; round++) {
        const retracted = live.shift()!;
        await harness.deliver(createEvent(commentMentionDeleted, { ...retracted.data, deletedAt: new Date().toISOString() }, { producer: 'comments', correlationId: 'r' }));
        const event = mentionEvent(ada, cleo);
        await harness.deliver(event);
        live.push(event);
      }
    };
    const answers = await readWhileWriting(async () => (await list(cleo, '?limit=100')).json(), churn, 2);
    expect(pagesAtOdds(answers, (answer) => answer.data)).toEqual([]);
  });

  it('orders by createdAt desc, then id desc, so pages neither repeat nor skip when times tie', async () => {
    const bob = await harness.knownUser('Bob_Ties');
    await mentioned(bob, 30, { msApart: 0 }); // thirty at the very same millisecond
    await mentioned(bob, 5, { start: Date.parse('2025-01-01T00:00:00.000Z') });
    const { rows } = await harness.pool.query<{ id: string }>(
      'SELECT id FROM notifications WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC',
      [bob.id],
    );
    const paged = [...(await idsOf(bob, '?limit=7')), ...(await idsOf(bob, '?page=2&limit=7')), ...(await idsOf(bob, '?page=3&limit=7'))];
    const rest = [...(await idsOf(bob, '?page=4&limit=7')), ...(await idsOf(bob, '?page=5&limit=7'))];
    expect([...paged, ...rest]).toEqual(rows.map((row) => row.id));
    expect(new Set([...paged, ...rest]).size).toBe(35);
  });

  it('walks by cursor through ties at the same millisecond, each once, following nextCursor and the Link header to the last page', async () => {
    const bob = await harness.knownUser('Bob_Cursor');
    await mentioned(bob, 12, { msApart: 0 });
    await mentioned(bob, 5, { start: Date.parse('2025-01-01T00:00:00.000Z') });
    const { rows } = await harness.pool.query<{ id: string }>('SELECT id FROM notifications WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC', [bob.id]);
    const walked: string[] = [];
    let url = '/api/notifications?limit=4&unknown=kept';
    for (;;) {
      const response = await harness.app.inject({ method: 'GET', url, headers: bearer(bob) });
      expect(response.statusCode).toBe(200);
      const { data, pagination } = response.json();
      walked.push(...data.map((n: { id: string }) => n.id));
      const next = /<([^>]+)>; rel="next"/.exec(String(response.headers.link ?? ''))?.[1];
      if (pagination.nextCursor === null) {
        expect(next).toBeUndefined();
        break;
      }
      expect(next).toBe(`/api/notifications?limit=4&unknown=kept&cursor=${pagination.nextCursor}`);
      if (url.includes('cursor=')) expect(pagination).toMatchObject({ page: null, limit: 4, total: 17, totalPages: 5 });
      url = next!;
    }
    expect(walked).toEqual(rows.map((row) => row.id));
  });

  it('answers a page request with Link first, prev, next and last', async () => {
    const bob = await harness.knownUser('Bob_Links');
    await mentioned(bob, 9);
    const response = await list(bob, '?page=2&limit=3');
    const { pagination } = response.json();
    expect(response.headers.link).toBe(
      `</api/notifications?limit=3&cursor=${pagination.nextCursor}>; rel="next", </api/notifications?limit=3&page=1>; rel="first", ` +
        '</api/notifications?limit=3&page=1>; rel="prev", </api/notifications?limit=3&page=3>; rel="last"',
    );
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['empty', ''],
    ['another list’s', listCursor('comments').encode({ at: '2026-01-01T00:00:00.000000Z', id: newId() })],
    ['changed', `${notificationCursor.encode({ at: '2026-01-01T00:00:00.000000Z', id: newId() }).slice(0, -2)}AA`],
  ])('answers a %s cursor with 400 VALIDATION_ERROR', async (_, cursor) => {
    const bob = await harness.knownUser(`Bob_C${newId().slice(-6)}`);
    const problem = expectProblem(await list(bob, `?cursor=${encodeURIComponent(cursor)}`), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'cursor' })]);
  });

  it('shows the caller their own notifications only', async () => {
    const [bob, eve] = await Promise.all([harness.knownUser('Bob_Own'), harness.knownUser('Eve_Own')]);
    await mentioned(bob, 3);
    expect((await list(eve)).json()).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null } });
    expect(await unreadCount(eve)).toBe(0);
  });

  it('shows the actor’s current avatar after they change it', async () => {
    const cy = await harness.knownUser('Cy_Changes');
    const bob = await harness.knownUser('Bob_Sees');
    await harness.deliver(tagEvent(cy, bob));
    await harness.deliver(createEvent(userUpdated, { ...snapshotOf(cy), avatarUrl: 'https://cdn.example.com/new.png', revision: 1 }, { producer: 'users', correlationId: 'c' }));
    expect((await list(bob)).json().data[0].actor).toEqual({ id: cy.id, username: 'Cy_Changes', avatarUrl: 'https://cdn.example.com/new.png' });
  });

  it('asks the users service, once, about an actor registered a moment ago', async () => {
    const fresh = harness.newUser('Fresh_Actor');
    const bob = await harness.knownUser('Bob_Fresh');
    await harness.deliver(mentionEvent(fresh, bob));
    const before = harness.users.requests.length;
    expect((await list(bob)).json().data[0].actor).toEqual({ id: fresh.id, username: 'Fresh_Actor', avatarUrl: null });
    await list(bob);
    expect(harness.users.requests.length - before).toBe(1);
  });

  it('leaves out a notification whose actor no service knows, rather than failing the page', async () => {
    const bob = await harness.knownUser('Bob_Ghost');
    await harness.deliver(mentionEvent({ id: newId() }, bob));
    await harness.deliver(mentionEvent(ada, bob));
    const body = (await list(bob)).json();
    expect(body.data.map((n: { actor: { id: string } }) => n.actor.id)).toEqual([ada.id]);
  });

  it.each(['?page=0', '?page=-1', '?page=1.5', '?limit=0', '?limit=abc', '?limit=', '?page=1e3'])('answers %s with 400', async (query) => {
    const bob = await harness.knownUser(`Bob_Q${newId().slice(-6)}`);
    expect(expectProblem(await list(bob, query), 400).code).toBe('VALIDATION_ERROR');
  });

  it('ignores unknown query parameters', async () => {
    const bob = await harness.knownUser('Bob_Unknown_Q');
    expect((await list(bob, '?sort=asc&recipient=someone')).statusCode).toBe(200);
  });
});

describe('GET /api/notifications/unread-count', () => {
  it('counts what is unread, and follows what is marked read', async () => {
    const bob = await harness.knownUser('Bob_Count');
    expect(await unreadCount(bob)).toBe(0);
    await mentioned(bob, 4);
    expect(await unreadCount(bob)).toBe(4);
    const [first, second] = await idsOf(bob);
    await markRead(bob, { notificationIds: [first, second] });
    expect(await unreadCount(bob)).toBe(2);
  });
});

describe('PATCH /api/notifications/read', () => {
  it('marks the caller’s notifications read and counts only those that changed', async () => {
    const bob = await harness.knownUser('Bob_Marks');
    await mentioned(bob, 3);
    const [a, b, c] = await idsOf(bob);
    const first = await markRead(bob, { notificationIds: [a, b, a] });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ message: 'Notifications marked as read', updated: 2 });
    // Already read, unknown: ignored.
    expect((await markRead(bob, { notificationIds: [a, b, c, newId()] })).json()).toEqual({ message: 'Notifications marked as read', updated: 1 });
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
    const results = await Promise.all([markRead(bob, { notificationIds: ids }), markRead(bob, { notificationIds: ids.slice(3) })]);
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
    expectProblem(await raw(JSON.stringify({ notificationIds: [newId()], padding: 'x'.repeat(70_000) }), 'application/json'), 413);
  });
});

describe('POST /api/notifications/read-all', () => {
  const readAll = (user: TestUser, payload?: object) =>
    harness.app.inject({ method: 'POST', url: '/api/notifications/read-all', headers: bearer(user), ...(payload ? { payload } : {}) });

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
    const nullBody = await harness.app.inject({ method: 'POST', url: '/api/notifications/read-all', headers: { ...bearer(fin), 'content-type': 'application/json' }, payload: 'null' });
    expectProblem(nullBody, 400);
    expect(await unreadCount(fin)).toBe(1);
    expect(await unreadCount(gil)).toBe(1);
  });
});

describe('ETag and If-None-Match', () => {
  const get = (user: TestUser, url: string, etag?: string) =>
    harness.app.inject({ method: 'GET', url, headers: { ...bearer(user), ...(etag ? { 'if-none-match': etag } : {}) } });

  it('answers 304 with no body while nothing changed, and 200 with a new ETag once anything did', async () => {
    const hana = await harness.knownUser('Hana_ETag');
    const cy = await harness.knownUser('Cy_Avatar');
    const [event] = await mentioned(hana, 1);
    const urls = ['/api/notifications/unread-count', '/api/notifications', '/api/notifications?page=1&limit=5'];
    const tags = async () => Promise.all(urls.map(async (url) => (await get(hana, url)).headers.etag as string));

    let current = await tags();
    expect(new Set(current).size).toBe(urls.length);
    for (const [i, url] of urls.entries()) {
      const first = await get(hana, url);
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('private, no-cache');
      for (const ifNoneMatch of [current[i]!, `W/${current[i]}`, `"nope", ${current[i]}`, '*']) {
        const again = await get(hana, url, ifNoneMatch);
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers.etag).toBe(current[i]);
      }
      expect((await get(hana, url, '"nope"')).statusCode).toBe(200);
    }

    const changes: [string, () => Promise<unknown>][] = [
      ['a new notification', () => harness.deliver(mentionEvent(cy, hana))],
      ['a read', async () => markRead(hana, { notificationIds: await idsOf(hana) })],
      ['a retraction', () => harness.deliver(createEvent(commentMentionDeleted, { ...event!.data, deletedAt: new Date().toISOString() }, { producer: 'comments', correlationId: 'r' }))],
    ];
    for (const [change, act] of changes) {
      const countBefore = await unreadCount(hana);
      await act();
      const next = await tags();
      for (const [i, url] of urls.entries()) {
        // The unread count's tag follows the count alone: a read notification retracted leaves it as it was.
        if (url.endsWith('unread-count') && (await unreadCount(hana)) === countBefore) {
          expect(next[i], `${change}: ${url}`).toBe(current[i]);
          continue;
        }
        expect(next[i], `${change}: ${url}`).not.toBe(current[i]);
        expect((await get(hana, url, current[i])).statusCode, `${change}: ${url}`).toBe(200);
      }
      current = next;
    }

    // A changed actor avatar changes the listing, not the count.
    await harness.deliver(createEvent(userUpdated, { ...snapshotOf(cy), avatarUrl: 'https://cdn.example.com/cy.png', revision: 1 }, { producer: 'users', correlationId: 'a' }));
    const afterAvatar = await tags();
    expect(afterAvatar[1]).not.toBe(current[1]);
    expect((await get(hana, urls[1]!, current[1])).statusCode).toBe(200);
  });

  it('gives each page its own tag, cursor pages included: one page’s tag never earns another page a 304', async () => {
    const ivy = await harness.knownUser('Ivy_ETag');
    await mentioned(ivy, 7);
    const first = await get(ivy, '/api/notifications?limit=2');
    const second = await get(ivy, `/api/notifications?limit=2&cursor=${first.json().pagination.nextCursor}`);
    const third = await get(ivy, `/api/notifications?limit=2&cursor=${second.json().pagination.nextCursor}`);
    const byPage = await get(ivy, '/api/notifications?limit=2&page=2');
    const tags = [first, second, third, byPage].map((response) => response.headers.etag as string);
    expect(new Set(tags).size).toBe(4);
    const secondUrl = `/api/notifications?limit=2&cursor=${first.json().pagination.nextCursor}`;
    expect((await get(ivy, secondUrl, tags[1])).statusCode).toBe(304);
    for (const other of [tags[0], tags[2], tags[3]]) expect((await get(ivy, secondUrl, other)).statusCode).toBe(200);
  });

  it('keeps the tags of one user apart from another’s', async () => {
    const ivo = await harness.knownUser('Ivo_ETag');
    const jan = await harness.knownUser('Jan_ETag');
    await mentioned(ivo, 1);
    const ivos = (await get(ivo, '/api/notifications/unread-count')).headers.etag as string;
    await mentioned(jan, 1);
    expect((await get(ivo, '/api/notifications/unread-count', ivos)).statusCode).toBe(304);
  });

  it('binds every tag to its caller: for two users in any states, one’s tag never earns the other a 304, and a tag changes with its body', async () => {
    const urls = ['/api/notifications/unread-count', '/api/notifications?limit=100', '/api/notifications?page=2&limit=1'];
    // What each user's client has seen: per url, the last body and its tag.
    type Seen = Map<string, { body: string; etag: string }>;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('mention' as const), of: fc.nat(1), by: fc.nat(1) }),
      fc.record({ kind: fc.constant('read all' as const), of: fc.nat(1) }),
      fc.record({ kind: fc.constant('retract newest' as const), of: fc.nat(1) }),
      fc.record({ kind: fc.constant('new avatar' as const), by: fc.nat(1) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
        run += 1;
        const users = [await harness.knownUser(`Tag_A${run}`), await harness.knownUser(`Tag_B${run}`)] as const;
        const actors = [await harness.knownUser(`Tag_C${run}`), await harness.knownUser(`Tag_D${run}`)] as const;
        const mentions: ReturnType<typeof mentionEvent>[][] = [[], []];
        const seen: Seen[] = [new Map(), new Map()];
        let avatars = 0;

        const look = async () => {
          for (const url of urls) {
            const [mine, theirs] = [await get(users[0], url), await get(users[1], url)];
            expect(mine.headers.etag).not.toBe(theirs.headers.etag);
            for (const [i, answer] of [mine, theirs].entries()) {
              expect(answer.statusCode).toBe(200);
              expect(answer.headers.vary).toMatch(/authorization/i);
              const other = users[1 - i]!;
              // The other user, sending this user's tag, gets their own body.
              expect((await get(other, url, answer.headers.etag as string)).statusCode, `${url} with the other’s tag`).toBe(200);
              const before = seen[i]!.get(url);
              // A kept tag means a kept body (never a stale 304). The other way round holds for the count and
              // a whole list; a part of a list gets a new tag with any change to the list (one more 200).
              if (before?.etag === answer.headers.etag) expect(answer.body, `${url}: same tag, same body`).toBe(before.body);
              if (before?.body === answer.body && !url.includes('page=2')) expect(answer.headers.etag, `${url}: same body, same tag`).toBe(before.etag);
              seen[i]!.set(url, { body: answer.body, etag: answer.headers.etag as string });
            }
          }
        };

        await look();
        for (const action of steps) {
          if (action.kind === 'mention') {
            const event = mentionEvent(actors[action.by]!, users[action.of]!);
            mentions[action.of]!.push(event);
            await harness.deliver(event);
          } else if (action.kind === 'read all') {
            await harness.app.inject({ method: 'POST', url: '/api/notifications/read-all', headers: bearer(users[action.of]!) });
          } else if (action.kind === 'retract newest') {
            const event = mentions[action.of]!.pop();
            if (event) await harness.deliver(createEvent(commentMentionDeleted, { ...event.data, deletedAt: new Date().toISOString() }, { producer: 'comments', correlationId: 'r' }));
          } else {
            avatars += 1;
            const actor = actors[action.by]!;
            await harness.deliver(createEvent(userUpdated, { ...snapshotOf(actor), avatarUrl: `https://cdn.example.com/${avatars}.png`, revision: avatars }, { producer: 'users', correlationId: 'a' }));
          }
          await look();
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('authentication', () => {
  const routes = [
    { method: 'GET', url: '/api/notifications' },
    { method: 'GET', url: '/api/notifications/unread-count' },
    { method: 'PATCH', url: '/api/notifications/read', payload: { notificationIds: 'not even valid' } },
    { method: 'POST', url: '/api/notifications/read-all', payload: { upTo: 'not even valid' } },
    { method: 'POST', url: '/api/notifications/stream-tickets' },
  ] as const;

  it.each(routes)('$method $url answers 401 without a token, before looking at the input', async (route) => {
    expect(expectProblem(await harness.app.inject(route), 401).code).toBe('UNAUTHORIZED');
  });

  it.each(routes)('$method $url answers 401 for a token that is not valid', async (route) => {
    for (const authorization of ['Bearer nonsense', 'Basic YWRhOnB3', `Bearer ${ada.token}x`, 'Bearer ']) {
      expectProblem(await harness.app.inject({ ...route, headers: { authorization } }), 401);
    }
  });
});

describe('the API document', () => {
  it('lists the routes, each needing a bearer token, and the stream a ticket as well', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/notifications',
      '/api/notifications/groups',
      '/api/notifications/groups/{groupKey}/read',
      '/api/notifications/preferences',
      '/api/notifications/read',
      '/api/notifications/read-all',
      '/api/notifications/stream',
      '/api/notifications/stream-tickets',
      '/api/notifications/unread-count',
    ]);
    const { '/api/notifications/stream': stream, ...others } = document.paths as Record<string, Record<string, { security?: unknown }>>;
    for (const path of Object.values(others)) {
      for (const operation of Object.values(path)) expect(operation.security).toEqual([{ bearerAuth: [] }]);
    }
    expect(stream!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(Object.keys((stream!.get as unknown as { responses: Record<string, { content: object }> }).responses['200']!.content)).toEqual(['text/event-stream']);
  });
});
