import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool, readPage } from '../src/index.js';

const silent = { info: () => undefined, warn: () => undefined };

const listing = {
  count: 'SELECT count(*)::int AS total FROM items WHERE owner = $1',
  page: 'SELECT id, label, made_at AS "madeAt" FROM items WHERE owner = $1 ORDER BY id LIMIT $2 OFFSET $3',
};

describe('readPage', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createPool({ connectionString: database.url, applicationName: 'page-test', logger: silent });
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, owner int NOT NULL, label text, made_at timestamptz NOT NULL DEFAULT now())');
    // Owner n has n items (0 to 30); their labels are null every other one, so no column but `id` is always set.
    await pool.query(
      `INSERT INTO items (id, owner, label) SELECT owner * 100 + n, owner, CASE WHEN n % 2 = 0 THEN 'item ' || n END
         FROM generate_series(0, 30) AS owner, generate_series(1, owner) AS n`,
    );
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('gives any page its rows as the page query alone does, and the whole total, also past the end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 40 }), async (owner, limit, offset) => {
        const { rows, total } = await readPage<{ id: number }>(pool, listing, [owner, limit, offset]);
        const alone = await pool.query(listing.page, [owner, limit, offset]);
        expect(rows).toEqual(alone.rows);
        expect(total).toBe(owner);
      }),
      { numRuns: 100 },
    );
  });
});
