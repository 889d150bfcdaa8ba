import { newId } from '@recipes/contracts';
import { walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarnessWith, type TestUser } from '../support.js';

/**
 * docs/api.md §10.1: a walk by cursor through a user's saved items (filtered or not), a collection's items
 * or a user's collections, while their owner adds and removes some, sees each that stayed exactly once, in order.
 */
let harness: CollectionsHarness;
let author: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [author],
    } = await collectionsHarnessWith(['walks_author'])),
);
afterAll(() => harness.close());

/** A listing as a walk sees it: where it is read, its items' field, and how its owner adds and removes one. */
interface Walked {
  url: string;
  field: 'savedItems' | 'collections';
  /** Adds an item, and gives its id and its place (sort key and id) as the listing orders it. */
  add(): Promise<string>;
  remove(id: string): Promise<void>;
  /** The sort key of an item, as stored: read once it exists, kept after it is gone. */
  sortKey: string;
  /** Whether the listing's filter keeps the item. */
  kept(id: string): boolean;
}

const at = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

async function savedItems(user: TestUser, query: string, onlyRecipes = false): Promise<Walked> {
  const recipes = new Set<string>();
  return {
    url: `/api/users/${user.user.id}/saved-items?${query}`,
    field: 'savedItems',
    async add() {
      const contentType = Math.random() < 0.5 ? 'recipe' : 'post';
      const content = await harness.content(contentType, author.user.id);
      const response = await harness.app.inject({
        method: 'POST',
        url: '/api/saved-items',
        payload: { contentType, contentId: content.id },
        headers: user.headers,
      });
      expect(response.statusCode).toBe(201);
      const { id } = response.json().savedItem;
      if (contentType === 'recipe') recipes.add(id);
      return id;
    },
    async remove(id) {
      expect(
        (await harness.app.inject({ method: 'DELETE', url: `/api/saved-items/${id}`, headers: user.headers }))
          .statusCode,
      ).toBe(200);
    },
    sortKey: `SELECT ${at('created_at')} || id AS key FROM saved_items WHERE id = $1`,
    kept: (id) => !onlyRecipes || recipes.has(id),
  };
}

async function collectionItems(user: TestUser): Promise<Walked> {
  const { collection } = (
    await harness.app.inject({
      method: 'POST',
      url: '/api/collections',
      payload: { name: 'walked' },
      headers: user.headers,
    })
  ).json();
  const saving = await savedItems(user, '');
  return {
    url: `/api/collections/${collection.id}/items?`,
    field: 'savedItems',
    async add() {
      const savedItemId = await saving.add();
      const response = await harness.app.inject({
        method: 'POST',
        url: `/api/collections/${collection.id}/items`,
        payload: { savedItemId },
        headers: user.headers,
      });
      expect(response.statusCode).toBe(201);
      return savedItemId;
    },
    async remove(savedItemId) {
      const response = await harness.app.inject({
        method: 'DELETE',
        url: `/api/collections/${collection.id}/items`,
        payload: { savedItemId },
        headers: user.headers,
      });
      expect(response.statusCode).toBe(200);
    },
    sortKey: `SELECT ${at('added_at')} || saved_item_id AS key FROM collection_items WHERE saved_item_id = $1`,
    kept: () => true,
  };
}

async function collections(user: TestUser): Promise<Walked> {
  return {
    url: `/api/users/${user.user.id}/collections?`,
    field: 'collections',
    async add() {
      const response = await harness.app.inject({
        method: 'POST',
        url: '/api/collections',
        payload: { name: 'c' },
        headers: user.headers,
      });
      expect(response.statusCode).toBe(201);
      return response.json().collection.id;
    },
    async remove(id) {
      expect(
        (await harness.app.inject({ method: 'DELETE', url: `/api/collections/${id}`, headers: user.headers }))
          .statusCode,
      ).toBe(200);
    },
    sortKey: `SELECT ${at('created_at')} || id AS key FROM collections WHERE id = $1`,
    kept: () => true,
  };
}

const lists = {
  'saved items': (user: TestUser) => savedItems(user, ''),
  'standalone saved items': (user: TestUser) => savedItems(user, 'standalone=true'),
  'saved recipes': (user: TestUser) => savedItems(user, 'content_type=recipe', true),
  'a collection’s items': collectionItems,
  'a user’s collections': collections,
};

const change = fc.oneof(fc.constant({ add: true as const }), fc.record({ remove: fc.nat() }));

describe('walking the collections service’s lists by cursor', () => {
  it.each(Object.keys(lists) as Array<keyof typeof lists>)(
    'sees every item of %s that stayed exactly once, newest first, never one twice, whatever is added and removed meanwhile',
    async (name) => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 8 }),
          fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 6 }),
          fc.integer({ min: 1, max: 3 }),
          async (initial, changes, limit) => {
            const user = await harness.user(`walker_${newId().slice(-10)}`);
            const list = await lists[name](user);
            const live: string[] = [];
            const keys = new Map<string, string>();
            const add = async () => {
              const id = await list.add();
              live.push(id);
              keys.set(id, (await harness.pool.query<{ key: string }>(list.sortKey, [id])).rows[0]!.key);
            };
            for (let i = 0; i < initial; i++) await add();
            const before = new Set(live);

            const seen = await walkWhileChanging(
              async (cursor) => {
                const response = await harness.app.inject({
                  method: 'GET',
                  url: `${list.url}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
                  headers: user.headers,
                });
                expect(response.statusCode).toBe(200);
                const body = response.json();
                return {
                  ids: body[list.field].map((item: { id: string }) => item.id),
                  nextCursor: body.pagination.nextCursor,
                };
              },
              async (step) => {
                for (const next of changes[step] ?? []) {
                  if ('add' in next) await add();
                  else if (live.length > 0) await list.remove(live.splice(next.remove % live.length, 1)[0]!);
                }
              },
            );

            // Newest first: the greatest key (sort key, then id) ranks first.
            const ranked = [...keys.entries()].sort(([, a], [, b]) => (a < b ? 1 : a > b ? -1 : 0)).map(([id]) => id);
            // An item the filter leaves out has no rank, so seeing it is a fault.
            const rank = new Map(ranked.filter((id) => list.kept(id)).map((id, i) => [id, i]));
            expect(
              walkFaults(
                seen,
                [...before].filter((id) => live.includes(id) && list.kept(id)),
                (id) => rank.get(id) ?? Number.NaN,
              ),
            ).toEqual([]);
          },
        ),
        { numRuns: 10 },
      );
    },
  );
});
