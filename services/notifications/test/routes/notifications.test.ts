import { commentMentionDeleted, createEvent, listCursor, newId, userUpdated } from '@recipes/contracts';
import { pagesAtOdds, readWhileWriting } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationCursor } from '../../src/schemas.js';
import {
  bearer,
  expectProblem,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarness,
  snapshotOf,
  tagEvent,
  type TestUser,
} from '../support.js';
import { inboxCalls } from './inbox-calls.js';

let harness: NotificationsHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await notificationsHarness();
  ada = await harness.knownUser('Ada_Actor', 'https://cdn.example.com/ada.png');
});
afterAll(() => harness.close());

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const { list, unreadCount, markRead, mentioned, idsOf } = inboxCalls(
  () => harness,
  () => ada,
);

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
    expect(clamped.pagination).toEqual({
      page: 1,
      limit: 100,
      total: 105,
      totalPages: 2,
      nextCursor: expect.any(String),
    });
    const last = (await list(bob, '?page=2&limit=100')).json();
    expect(last.data).toHaveLength(5);
    expect((await list(bob, '?page=9')).json()).toEqual({
      data: [],
      pagination: { page: 9, limit: 20, total: 105, totalPages: 6, nextCursor: null },
    });
  });

  it('answers each page from one snapshot while notifications arrive and are retracted', async () => {
    const cleo = await harness.knownUser('Cleo_Churn');
    const live = await mentioned(cleo, 20);
    // Another client's doing: the oldest mention taken back, then a new one made, over and over.
    const churn = async () => {
      for (let round = 0; round < 40; round++) {
        const retracted = live.shift()!;
        await harness.deliver(
          createEvent(
            commentMentionDeleted,
            { ...retracted.data, deletedAt: new Date().toISOString() },
            { producer: 'comments', correlationId: 'r' },
          ),
        );
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
    const paged = [
      ...(await idsOf(bob, '?limit=7')),
      ...(await idsOf(bob, '?page=2&limit=7')),
      ...(await idsOf(bob, '?page=3&limit=7')),
    ];
    const rest = [...(await idsOf(bob, '?page=4&limit=7')), ...(await idsOf(bob, '?page=5&limit=7'))];
    expect([...paged, ...rest]).toEqual(rows.map((row) => row.id));
    expect(new Set([...paged, ...rest]).size).toBe(35);
  });

  it('walks by cursor through ties at the same millisecond, each once, following nextCursor and the Link header to the last page', async () => {
    const bob = await harness.knownUser('Bob_Cursor');
    await mentioned(bob, 12, { msApart: 0 });
    await mentioned(bob, 5, { start: Date.parse('2025-01-01T00:00:00.000Z') });
    const { rows } = await harness.pool.query<{ id: string }>(
      'SELECT id FROM notifications WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC',
      [bob.id],
    );
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
    expect((await list(eve)).json()).toEqual({
      data: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null },
    });
    expect(await unreadCount(eve)).toBe(0);
  });

  it('shows the actor’s current avatar after they change it', async () => {
    const cy = await harness.knownUser('Cy_Changes');
    const bob = await harness.knownUser('Bob_Sees');
    await harness.deliver(tagEvent(cy, bob));
    await harness.deliver(
      createEvent(
        userUpdated,
        { ...snapshotOf(cy), avatarUrl: 'https://cdn.example.com/new.png', revision: 1 },
        { producer: 'users', correlationId: 'c' },
      ),
    );
    expect((await list(bob)).json().data[0].actor).toEqual({
      id: cy.id,
      username: 'Cy_Changes',
      avatarUrl: 'https://cdn.example.com/new.png',
    });
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

  it.each(['?page=0', '?page=-1', '?page=1.5', '?limit=0', '?limit=abc', '?limit=', '?page=1e3'])(
    'answers %s with 400',
    async (query) => {
      const bob = await harness.knownUser(`Bob_Q${newId().slice(-6)}`);
      expect(expectProblem(await list(bob, query), 400).code).toBe('VALIDATION_ERROR');
    },
  );

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
      '/api/push/public-key',
      '/api/push/subscriptions',
      '/api/push/subscriptions/{id}',
    ]);
    // The push service's key is public (docs/api.md §11.3); the stream takes a ticket as well.
    const {
      '/api/notifications/stream': stream,
      '/api/push/public-key': publicKey,
      ...others
    } = document.paths as Record<string, Record<string, { security?: unknown }>>;
    for (const path of Object.values(others)) {
      for (const operation of Object.values(path)) expect(operation.security).toEqual([{ bearerAuth: [] }]);
    }
    expect(stream!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(publicKey!.get!.security).toEqual([]);
    expect(
      Object.keys(
        (stream!.get as unknown as { responses: Record<string, { content: object }> }).responses['200']!.content,
      ),
    ).toEqual(['text/event-stream']);
  });
});
