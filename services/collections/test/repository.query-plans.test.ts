import type { Queryable } from '@recipes/db';
import { explainQuery, type PlanNode } from '@recipes/testing';
import { migratedPool } from '@recipes/testing/service';
import { beforeAll, describe, expect, it } from 'vitest';
import * as collections from '../src/repository/collections.js';
import * as savedItems from '../src/repository/saved-items.js';
import { collectionsService } from '../src/service.js';
import { totalsAndRecount } from './support.js';

/**
 * The listings read a page from an index whatever the number of a user's saved items: seeded with a
 * user who saved 100,000 (half in collections), one who saved 10, and 5,000 others, then analysed,
 * each listing query is explained as the repository sends it.
 */
const pool = migratedPool(collectionsService);

const uuid = (prefix: string, n: string) => `md5('${prefix}' || ${n})::uuid`;
const heavy = '00000000-0000-4000-8000-000000000001';
const light = '00000000-0000-4000-8000-000000000002';
const HEAVY_ITEMS = 100_000;

beforeAll(async () => {
  const author = '00000000-0000-4000-8000-0000000000aa';
  await pool.query(`INSERT INTO users (id, username, avatar_url, revision) VALUES ('${author}', 'author', NULL, 0)`);
  await pool.query(
    `INSERT INTO content_items (id, content_type, author_id, title, cover_image_url, deleted, revision, created_at)
     SELECT ${uuid('c', 'n')}, CASE WHEN n % 2 = 0 THEN 'recipe' ELSE 'post' END, '${author}', 'Item ' || n, NULL, false, 0, now()
       FROM generate_series(1, ${HEAVY_ITEMS + 20_010}) AS n`,
  );
  // Item n of the heavy user, n in 100,001..100,010 the light user's, the rest four to each of 5,000 users.
  await pool.query(
    `INSERT INTO saved_items (id, user_id, content_type, content_id, created_at)
     SELECT ${uuid('s', 'n')},
            CASE WHEN n <= ${HEAVY_ITEMS} THEN '${heavy}'::uuid WHEN n <= ${HEAVY_ITEMS + 10} THEN '${light}'::uuid ELSE ${uuid('u', 'n % 5000')} END,
            CASE WHEN n % 2 = 0 THEN 'recipe' ELSE 'post' END, ${uuid('c', 'n')}, now() - n * interval '1 second'
       FROM generate_series(1, ${HEAVY_ITEMS + 20_010}) AS n`,
  );
  await pool.query(
    `INSERT INTO collections (id, owner_id, name, description)
     SELECT ${uuid('k', 'n')}, CASE WHEN n < 50 THEN '${heavy}'::uuid ELSE ${uuid('u', 'n % 5000')} END, 'Board ' || n, ''
       FROM generate_series(0, 5049) AS n`,
  );
  // Every even item of the heavy user, in one of its 50 collections.
  await pool.query(
    `INSERT INTO collection_items (collection_id, saved_item_id)
     SELECT ${uuid('k', '(n / 2) % 50')}, ${uuid('s', 'n')} FROM generate_series(2, ${HEAVY_ITEMS}, 2) AS n`,
  );
  await pool.query('ANALYZE');
}, 180_000);

const explain = (run: (db: Queryable) => Promise<unknown>) => explainQuery(pool, run);

const scansOf = (plan: PlanNode[], relation: string) => plan.filter((node) => node['Relation Name'] === relation);
const firstPage = { limit: 12, offset: 0 };
/** The entries a page reads: its own and one more, which says whether another page follows. */
const ENTRIES = firstPage.limit + 1;

describe('listing queries', () => {
  it.each([
    ['every item', {}, 'saved_items_listing_idx'],
    ['standalone items', { standaloneOnly: true }, 'saved_items_standalone_idx'],
    ['recipes', { contentType: 'recipe' as const }, 'saved_items_type_listing_idx'],
    ['standalone posts', { contentType: 'post' as const, standaloneOnly: true }, 'saved_items_type_standalone_idx'],
  ])(
    'read a page of %s from its index, 12 entries for 100,000 items as for 10, and the total from at most four counter rows',
    async (_case, filter, index) => {
      for (const userId of [heavy, light]) {
        const plan = await explain((db) =>
          savedItems.findSavedItemPage(db, { userId, standaloneOnly: false, ...filter }, firstPage),
        );
        const [scan, ...others] = scansOf(plan, 'saved_items');
        expect(others).toEqual([]);
        expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': index });
        expect(scan!['Actual Rows']).toBeLessThanOrEqual(ENTRIES);
        expect(plan.some((node) => node['Node Type'] === 'Sort')).toBe(false);
        expect(scansOf(plan, 'content_items').map((node) => node['Node Type'])).toEqual(['Index Scan']);
        const [totals, ...more] = scansOf(plan, 'saved_item_totals');
        expect(more).toEqual([]);
        expect(totals).toMatchObject({ 'Index Name': 'saved_item_totals_pkey' });
        expect(totals!['Actual Rows']).toBeLessThanOrEqual(4);
      }
    },
  );

  it.each([
    ['every item', {}, 'saved_items_listing_idx'],
    ['standalone items', { standaloneOnly: true }, 'saved_items_standalone_idx'],
    ['recipes', { contentType: 'recipe' as const }, 'saved_items_type_listing_idx'],
    ['standalone posts', { contentType: 'post' as const, standaloneOnly: true }, 'saved_items_type_standalone_idx'],
  ])(
    'read a page of %s 10,000 deep by cursor as a range of the same index from the position: no OFFSET, no sort',
    async (_case, filter, index) => {
      const listing = { userId: heavy, standaloneOnly: false, ...filter };
      const { next } = await savedItems.findSavedItemPage(pool, listing, { limit: 1, offset: 10_000 });
      const texts: string[] = [];
      const plan = await explain((db) =>
        savedItems.findSavedItemPage(
          { query: (text: string, values: unknown[]) => (texts.push(text), db.query(text, values)) } as Queryable,
          listing,
          { limit: 12, after: next! },
        ),
      );
      expect(texts.join('\n')).not.toMatch(/OFFSET/i);
      const [scan, ...others] = scansOf(plan, 'saved_items');
      expect(others).toEqual([]);
      expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': index, 'Actual Rows': ENTRIES });
      expect(plan.some((node) => node['Node Type'] === 'Sort')).toBe(false);
    },
  );

  it('read a collection’s items and a user’s collections from their indexes, with their totals', async () => {
    const { rows } = await pool.query('SELECT id FROM collections WHERE owner_id = $1 LIMIT 1', [heavy]);
    const collectionItems = await explain((db) => savedItems.findCollectionItemPage(db, rows[0].id, firstPage));
    expect(scansOf(collectionItems, 'collection_items')[0]).toMatchObject({
      'Index Name': 'collection_items_listing_idx',
    });
    expect(scansOf(collectionItems, 'collection_items')[0]!['Actual Rows']).toBeLessThanOrEqual(ENTRIES);
    // The total is the collection's kept count: one row by its key.
    expect(scansOf(collectionItems, 'collections')).toEqual([
      expect.objectContaining({ 'Index Name': 'collections_pkey', 'Actual Rows': 1 }),
    ]);

    const owned = await explain((db) => collections.findCollectionPage(db, heavy, firstPage));
    // The page and the count, each through the owner's index (the count perhaps as a bitmap of it).
    expect(owned.flatMap((node) => node['Index Name'] ?? [])).toEqual([
      'collections_owner_idx',
      'collections_owner_idx',
    ]);
    expect(owned.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
  });

  it('agree with a recount after the bulk load', async () => {
    const { kept, counted } = await totalsAndRecount(pool);
    expect(kept).toEqual(counted);
    const { rows } = await pool.query(
      'SELECT count, standalone FROM saved_item_totals WHERE user_id = $1 ORDER BY content_type, standalone',
      [heavy],
    );
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(HEAVY_ITEMS);
  });
});
