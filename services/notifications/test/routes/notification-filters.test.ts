import { newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarness,
  tagEvent,
  type TestUser,
} from '../support.js';

/** docs/api.md §10.2: `unread=true` and `types=…` on the caller's notifications, with cursors and ETags. */
let harness: NotificationsHarness;
let ada: TestUser;
let bob: TestUser;
/** Bob's notifications, newest first: [id, type, read]. */
let bobs: Array<{ id: string; type: string; isRead: boolean }>;

beforeAll(async () => {
  harness = await notificationsHarness();
  ada = await harness.knownUser('Ada_Filters');
  bob = await harness.knownUser('Bob_Filters');
  const start = Date.parse('2026-02-01T00:00:00.000Z');
  const at = (i: number) => ({ createdAt: new Date(start + i * 1000).toISOString() });
  // Twelve, of three types in turn, every third one read.
  for (let i = 0; i < 12; i++) {
    const kind = i % 3;
    await harness.deliver(
      kind === 0
        ? mentionEvent(ada, bob, 'recipe_comment', at(i))
        : kind === 1
          ? mentionEvent(ada, bob, 'post_comment', at(i))
          : tagEvent(ada, bob, 'recipe', at(i)),
    );
  }
  const listed = (await list(bob, '?limit=100')).json().data as Array<{ id: string }>;
  await harness.app.inject({
    method: 'PATCH',
    url: '/api/notifications/read',
    headers: bearer(bob),
    payload: { notificationIds: listed.filter((_, i) => i % 3 === 0).map((n) => n.id) },
  });
  bobs = (await list(bob, '?limit=100')).json().data;
});
afterAll(() => harness.close());

const list = (user: TestUser, query = '', headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'GET', url: `/api/notifications${query}`, headers: { ...bearer(user), ...headers } });

async function walk(query: string): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  do {
    const response = await list(bob, `${query}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(response.statusCode).toBe(200);
    const { data, pagination } = response.json();
    ids.push(...data.map((n: { id: string }) => n.id));
    totals.push(pagination.total);
    cursor = pagination.nextCursor;
  } while (cursor !== null);
  return { ids, totals };
}

describe('GET /api/notifications filtered', () => {
  it.each([
    ['?unread=true', (n: { isRead: boolean }) => !n.isRead],
    ['?unread=false', () => true],
    ['?types=tag_recipe', (n: { type: string }) => n.type === 'tag_recipe'],
    ['?types=mention_post_comment,tag_recipe', (n: { type: string }) => n.type !== 'mention_recipe_comment'],
    ['?types=mention_post_comment&types=tag_recipe', (n: { type: string }) => n.type !== 'mention_recipe_comment'],
    ['?types=tag_post', () => false],
    [
      '?unread=true&types=mention_recipe_comment,mention_recipe_comment',
      (n: { type: string; isRead: boolean }) => !n.isRead && n.type === 'mention_recipe_comment',
    ],
  ])(
    '%s keeps what it names, newest first, totals what it keeps, and pages by cursor through the same',
    async (query, keeps) => {
      const expected = bobs.filter((n) => keeps(n as never)).map((n) => n.id);
      const whole = (await list(bob, `${query}&limit=100`)).json();
      expect(whole.data.map((n: { id: string }) => n.id)).toEqual(expected);
      expect(whole.pagination).toMatchObject({ total: expected.length, totalPages: Math.ceil(expected.length / 100) });
      const walked = await walk(query);
      expect(walked.ids).toEqual(expected);
      expect(new Set(walked.totals)).toEqual(new Set([expected.length]));
    },
  );

  it('keeps the filter in the Link header’s URLs', async () => {
    const response = await list(bob, '?types=tag_recipe,mention_post_comment&unread=true&limit=2');
    const { nextCursor } = response.json().pagination;
    expect(response.headers.link).toContain(
      `</api/notifications?types=tag_recipe,mention_post_comment&unread=true&limit=2&cursor=${nextCursor}>; rel="next"`,
    );
  });

  it.each([
    '?types=',
    '?types=nope',
    '?types=tag_recipe,',
    '?types=TAG_RECIPE',
    '?unread=yes',
    '?unread=1',
    '?unread=true&unread=true',
  ])('answers %s with 400 VALIDATION_ERROR', async (query) => {
    const problem = expectProblem(await list(bob, query), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
  });

  it('gives a filtered list a validator of its own, which a change of what it keeps changes', async () => {
    const queries = [
      '',
      '?unread=true',
      '?types=tag_recipe',
      '?types=mention_post_comment,tag_recipe',
      '?types=tag_recipe,mention_post_comment',
      '?unread=true&types=tag_recipe',
    ];
    const tags = await Promise.all(queries.map(async (query) => (await list(bob, query)).headers.etag as string));
    // The same filter spelt in another order is the same list, with the same tag.
    expect(tags[3]).toBe(tags[4]);
    expect(new Set(tags).size).toBe(queries.length - 1);
    for (const [i, query] of queries.entries()) {
      expect((await list(bob, query, { 'if-none-match': tags[i]! })).statusCode).toBe(304);
      for (const [j, other] of tags.entries())
        if (other !== tags[i])
          expect(
            (await list(bob, query, { 'if-none-match': other })).statusCode,
            `${query} with ${queries[j]}'s tag`,
          ).toBe(200);
    }
    const eve = await harness.knownUser(`Eve_F${newId().slice(-6)}`);
    await harness.deliver(tagEvent(ada, eve));
    const before = (await list(eve, '?unread=true')).headers.etag as string;
    const [unread] = (await list(eve)).json().data;
    await harness.app.inject({
      method: 'PATCH',
      url: '/api/notifications/read',
      headers: bearer(eve),
      payload: { notificationIds: [unread.id] },
    });
    const after = await list(eve, '?unread=true', { 'if-none-match': before });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ data: [], pagination: { total: 0 } });
  });
});
