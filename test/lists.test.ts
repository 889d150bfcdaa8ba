import { eventually, walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { notificationsByCursor } from './client/client.js';
import { expectProblem, type JsonCall, jsonClient } from './support/http.js';
import { unlimited } from './faults/support.js';
import { startTestSystem } from './support/system.js';
import { type Account, create, register } from './support/world.js';

/**
 * docs/api.md §10.1 through the gateway, every service its own process: each list pages by cursor too,
 * answers an RFC 8288 Link header with root-relative URLs of the public path that keep the request's
 * other parameters, refuses a cursor it did not issue, and a walk by cursor is stable under writes.
 */
let system: StartedSystem;
let call: JsonCall;
let ada: Account;
let bob: Account;
/**
 * Ada's notifications: the seven comments that mention her, and bob's five on her post and five on her
 * collection, which tell her as their owner (docs/api.md §11.4).
 */
const ADA_NOTIFICATIONS = 7 + 5 + 5;

/** Each list: its public path (under /api), the field of its items, and the token it is read with. */
const lists: Record<string, { path: string; field: string; token?: string }> = {};

beforeAll(async () => {
  system = await startTestSystem({ name: 'recipes_lists', portOffset: 7710, env: unlimited });
  call = jsonClient(`${system.urlOf('gateway')}/api`);
  ada = await register(call, 'lists_ada');
  bob = await register(call, 'lists_bob');
  const recipe = await create(
    call,
    '/recipes',
    { title: 'R', cameraModel: 'X100V', filmSimulation: 'Acros' },
    ada,
    'recipe',
  );
  for (let i = 1; i < 5; i++)
    await create(call, '/recipes', { title: `R${i}`, cameraModel: 'X100V', filmSimulation: 'Acros' }, ada, 'recipe');
  const post = await create(call, '/posts', { title: 'P' }, ada, 'post');
  const collection = await create(call, '/collections', { name: 'C' }, ada, 'collection');
  for (let i = 1; i < 4; i++) await create(call, '/collections', { name: `C${i}` }, ada, 'collection');
  for (let i = 0; i < 7; i++)
    await create(
      call,
      `/recipes/${recipe.id}/comments`,
      { content: `@${ada.user.username} number ${i}` },
      bob,
      'comment',
    );
  for (let i = 0; i < 5; i++)
    await create(call, `/posts/${post.id}/comments`, { content: `post comment ${i}` }, bob, 'comment');
  for (let i = 0; i < 5; i++)
    await create(
      call,
      `/collections/${collection.id}/comments`,
      { content: `collection comment ${i}` },
      bob,
      'comment',
    );
  const recipes = (await call('GET', `/users/${ada.user.id}/recipes?limit=100`)).body.recipes as Array<{ id: string }>;
  for (const { id } of recipes) {
    const saved = await create(call, '/saved-items', { contentType: 'recipe', contentId: id }, ada, 'savedItem');
    expect(
      (await call('POST', `/collections/${collection.id}/items`, { savedItemId: saved.id }, ada.token)).status,
    ).toBe(201);
  }
  await eventually(
    async () =>
      (await call('GET', '/notifications', undefined, ada.token)).body.pagination.total === ADA_NOTIFICATIONS
        ? true
        : undefined,
    10_000,
    50,
  );
  // Muted and blocked by ada, after the mentions (a mute would have silenced them).
  for (let i = 0; i < 4; i++) {
    const other = await register(call, `lists_other_${i}`);
    expect((await call('PUT', `/users/${other.user.id}/mute`, undefined, ada.token)).status).toBe(200);
    expect((await call('PUT', `/users/${other.user.id}/block`, undefined, ada.token)).status).toBe(200);
  }
  Object.assign(lists, {
    notifications: { path: '/notifications', field: 'data', token: ada.token },
    'a recipe’s comments': { path: `/recipes/${recipe.id}/comments`, field: 'comments' },
    'a post’s comments': { path: `/posts/${post.id}/comments`, field: 'comments' },
    'a collection’s comments': { path: `/collections/${collection.id}/comments`, field: 'comments' },
    'a user’s recipes': { path: `/users/${ada.user.id}/recipes`, field: 'recipes' },
    'a user’s saved items': { path: `/users/${ada.user.id}/saved-items`, field: 'savedItems' },
    'a user’s collections': { path: `/users/${ada.user.id}/collections`, field: 'collections' },
    'a collection’s items': { path: `/collections/${collection.id}/items`, field: 'savedItems' },
    'the caller’s mutes': { path: '/users/me/mutes', field: 'users', token: ada.token },
    'the caller’s blocks': { path: '/users/me/blocks', field: 'users', token: ada.token },
  });
}, 120_000);
afterAll(() => system?.stop());

/** The links of a Link header by relation. */
function linksOf(header: string | null): Record<string, string> {
  return Object.fromEntries(
    [...(header ?? '').matchAll(/<([^>]*)>;\s*rel="([^"]+)"/g)].map(([, url, rel]) => [rel!, url!]),
  );
}

/** `url` (root-relative, as a Link gives it) called through the gateway. */
const follow = (url: string, token?: string) => {
  expect(url.startsWith('/api/')).toBe(true);
  return call('GET', url.slice('/api'.length), undefined, token);
};

const names = () => Object.keys(lists);

describe('every list by cursor through the gateway', () => {
  it.each([
    'notifications',
    'a recipe’s comments',
    'a post’s comments',
    'a collection’s comments',
    'a user’s recipes',
    'a user’s saved items',
    'a user’s collections',
    'a collection’s items',
    'the caller’s mutes',
    'the caller’s blocks',
  ])(
    '%s: following rel="next" from page 1 gives every item once, in the list’s order, each link keeping the other parameters, to nextCursor null',
    async (name) => {
      expect(names()).toContain(name);
      const { path, field, token } = lists[name]!;
      const whole = (await call('GET', `${path}?limit=100`, undefined, token)).body[field].map(
        (item: { id: string }) => item.id,
      );
      expect(whole.length).toBeGreaterThanOrEqual(4);
      const walked: string[] = [];
      let response = await call('GET', `${path}?limit=2&keep=yes`, undefined, token);
      for (let pages = 1; ; pages++) {
        expect(response.status).toBe(200);
        const { pagination } = response.body;
        walked.push(...response.body[field].map((item: { id: string }) => item.id));
        expect(pagination.total).toBe(whole.length);
        const next = linksOf(response.headers.get('link')).next;
        if (pagination.nextCursor === null) {
          expect(next).toBeUndefined();
          expect(pages).toBe(Math.ceil(whole.length / 2));
          break;
        }
        expect(next).toBe(`/api${path}?limit=2&keep=yes&cursor=${pagination.nextCursor}`);
        response = await follow(next!, token);
        expect(response.body.pagination.page).toBeNull();
      }
      expect(walked).toEqual(whole);
    },
  );

  it('declares the Link header, the cursor and nextCursor on every list in the published OpenAPI document', async () => {
    const document = await (await fetch(`${system.urlOf('gateway')}/docs/json`)).json();
    const listed = Object.entries(
      document.paths as Record<
        string,
        { get?: { parameters?: Array<{ name: string }>; responses: Record<string, { headers?: object }> } }
      >,
    )
      .filter(([, operations]) => operations.get?.parameters?.some((parameter) => parameter.name === 'page'))
      .map(([path, operations]) => [path, operations.get!] as const);
    expect(listed.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        '/api/notifications',
        '/api/notifications/groups',
        '/api/users/{id}/recipes',
        '/api/collections/{id}/items',
        '/api/users/me/mutes',
        '/api/users/me/blocks',
      ]),
    );
    for (const [path, operation] of listed) {
      expect(
        operation.parameters!.map((parameter) => parameter.name),
        path,
      ).toContain('cursor');
      expect(operation.responses['200']!.headers, path).toHaveProperty('link');
    }
  });

  it('is walked by cursor by the client generated from the OpenAPI document', async () => {
    const whole = (await call('GET', '/notifications?limit=100', undefined, ada.token)).body.data.map(
      (n: { id: string }) => n.id,
    );
    expect(await notificationsByCursor(system.urlOf('gateway'), ada.token, { limit: 3 })).toEqual({
      ids: whole,
      pages: Math.ceil(ADA_NOTIFICATIONS / 3),
    });
  });

  it('answers a page request with first, prev, next (by cursor) and last, and a cursor request with next only', async () => {
    const { path, token } = lists.notifications!;
    const second = await call('GET', `${path}?keep=yes&page=2&limit=2`, undefined, token);
    const base = `/api${path}?keep=yes&limit=2`;
    expect(linksOf(second.headers.get('link'))).toEqual({
      next: `${base}&cursor=${second.body.pagination.nextCursor}`,
      first: `${base}&page=1`,
      prev: `${base}&page=1`,
      last: `${base}&page=${Math.ceil(ADA_NOTIFICATIONS / 2)}`,
    });
    const byCursor = await follow(linksOf(second.headers.get('link')).next!, token);
    expect(Object.keys(linksOf(byCursor.headers.get('link')))).toEqual(['next']);
    // The first page has no prev.
    expect(Object.keys(linksOf((await call('GET', `${path}?limit=2`, undefined, token)).headers.get('link')))).toEqual([
      'next',
      'first',
      'last',
    ]);
  });

  it('refuses with 400 VALIDATION_ERROR a cursor it did not issue, a changed one, or one of another list, and changes nothing', async () => {
    const cursorOf = async (name: string) => {
      const { path, token } = lists[name]!;
      return (await call('GET', `${path}?limit=1`, undefined, token)).body.pagination.nextCursor as string;
    };
    const [notificationCursor, commentCursor, recipeCursor] = await Promise.all(
      ['notifications', 'a recipe’s comments', 'a user’s recipes'].map(cursorOf),
    );
    const refused: Array<[string, string]> = [
      ['notifications', 'garbage'],
      ['notifications', ''],
      ['notifications', `${notificationCursor!.slice(0, -3)}AAA`],
      ['notifications', commentCursor!],
      ['a user’s saved items', recipeCursor!],
      ['a post’s comments', notificationCursor!],
      ['a user’s collections', 'eyJpZCI6MX0'],
    ];
    for (const [name, cursor] of refused) {
      const { path, token } = lists[name]!;
      const response = await call('GET', `${path}?cursor=${encodeURIComponent(cursor)}`, undefined, token);
      expectProblem(response.raw, 400, `${name} ${cursor}`);
      expect(response.body.code).toBe('VALIDATION_ERROR');
      expect(response.body.errors).toEqual([expect.objectContaining({ path: 'cursor' })]);
    }
    expect((await call('GET', '/notifications', undefined, ada.token)).body.pagination.total).toBe(ADA_NOTIFICATIONS);
  });

  it('gives each notification page its own ETag, cursor pages too, so no page earns another a 304', async () => {
    const first = await call('GET', '/notifications?limit=3', undefined, ada.token);
    const secondUrl = `/notifications?limit=3&cursor=${first.body.pagination.nextCursor}`;
    const second = await call('GET', secondUrl, undefined, ada.token);
    const [firstTag, secondTag] = [first.headers.get('etag')!, second.headers.get('etag')!];
    expect(firstTag).not.toBe(secondTag);
    expect((await call('GET', secondUrl, undefined, ada.token, { 'if-none-match': secondTag })).status).toBe(304);
    expect((await call('GET', secondUrl, undefined, ada.token, { 'if-none-match': firstTag })).status).toBe(200);
    // Bound to the caller: bob's copy of the same URL never matches ada's tag.
    expect((await call('GET', secondUrl, undefined, bob.token, { 'if-none-match': secondTag })).status).toBe(200);
  });

  it('walks a recipe’s comments by cursor while another client adds and deletes comments: each comment that stayed seen exactly once, in order', async () => {
    const recipe = await create(
      call,
      '/recipes',
      { title: 'Walked', cameraModel: 'X100V', filmSimulation: 'Acros' },
      ada,
      'recipe',
    );
    const path = `/recipes/${recipe.id}/comments`;
    const change = fc.oneof(fc.constant({ add: true as const }), fc.record({ remove: fc.nat() }));
    const live: string[] = [];
    // Comments are listed oldest first and each new one is newer: the order they are made in is the list's.
    const made: string[] = [];
    const add = async () => {
      const { id } = await create(call, path, { content: 'walked' }, bob, 'comment');
      live.push(id);
      made.push(id);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 3 }),
        async (initial, changes, limit) => {
          for (let i = 0; i < initial; i++) await add();
          const before = new Set(live);
          const seen = await walkWhileChanging(
            async (cursor) => {
              const response = await call('GET', `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
              expect(response.status).toBe(200);
              return {
                ids: response.body.comments.map((comment: { id: string }) => comment.id),
                nextCursor: response.body.pagination.nextCursor,
              };
            },
            async (step) => {
              for (const next of changes[step] ?? []) {
                if ('add' in next) await add();
                else if (live.length > 0)
                  expect(
                    (
                      await call(
                        'DELETE',
                        `${path}/${live.splice(next.remove % live.length, 1)[0]}`,
                        undefined,
                        bob.token,
                      )
                    ).status,
                  ).toBe(200);
              }
            },
          );
          const stayed = [...before].filter((id) => live.includes(id));
          expect(walkFaults(seen, stayed, (id) => (made.includes(id) ? made.indexOf(id) : Number.NaN))).toEqual([]);
        },
      ),
      { numRuns: 6 },
    );
  });
});
