import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPool,
  type ListingRequest,
  type ListingStatement,
  type Pool,
  readListing,
  readPage,
} from '../src/index.js';

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
    await pool.query(
      'CREATE TABLE items (id int PRIMARY KEY, owner int NOT NULL, label text, made_at timestamptz NOT NULL DEFAULT now())',
    );
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
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        async (owner, limit, offset) => {
          const { rows, total } = await readPage<{ id: number }>(pool, listing, [owner, limit, offset]);
          const alone = await pool.query(listing.page, [owner, limit, offset]);
          expect(rows).toEqual(alone.rows);
          expect(total).toBe(owner);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('readListing', () => {
  let database: TestDatabase;
  let pool: Pool;
  const newest = (owner: number, order: 'asc' | 'desc' = 'desc'): ListingStatement => ({
    count: `SELECT count(*)::int AS total FROM entries WHERE owner = ${owner}`,
    columns: 'id, made_at AS "madeAt"',
    from: `FROM entries WHERE owner = ${owner}`,
    order: { at: 'made_at', id: 'id', idType: 'uuid', direction: order },
  });
  const ordered = (rows: Array<{ id: string; madeAt: string }>, order: 'asc' | 'desc') =>
    [...rows].sort(
      (a, b) =>
        (a.madeAt === b.madeAt ? a.id.localeCompare(b.id) : a.madeAt.localeCompare(b.madeAt)) *
        (order === 'asc' ? 1 : -1),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createPool({ connectionString: database.url, applicationName: 'listing-test', logger: silent });
    // Timestamps to the microsecond, many equal: a position must keep both to resume exactly.
    await pool.query('CREATE TABLE entries (id uuid PRIMARY KEY, owner int NOT NULL, made_at timestamptz NOT NULL)');
    await pool.query('CREATE INDEX entries_listing_idx ON entries (owner, made_at DESC, id DESC)');
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const entries = fc.array(fc.tuple(fc.uuid({ version: 7 }), fc.integer({ min: 0, max: 20 })), { maxLength: 40 });
  const at = (micros: number) => `2026-11-27T10:00:00.0000${String(micros).padStart(2, '0')}Z`;

  it('gives by positions the pages that OFFSET gives, in order, with a next position exactly while more follow', async () => {
    let owner = 0;
    await fc.assert(
      fc.asyncProperty(
        entries,
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        async (made, limit, order) => {
          owner += 1;
          const unique = [...new Map(made).entries()];
          for (const [id, micros] of unique)
            await pool.query('INSERT INTO entries VALUES ($1, $2, $3)', [id, owner, at(micros)]);
          const all = (
            await pool.query<{ id: string; madeAt: string }>(
              `SELECT id, to_char(made_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "madeAt" FROM entries WHERE owner = $1`,
              [owner],
            )
          ).rows;
          const expected = ordered(all, order).map((row) => row.id);
          const walked: string[] = [];
          let request: ListingRequest = { limit, offset: 0 };
          for (;;) {
            const page = await readListing<{ id: string }>(pool, newest(owner, order), [], request);
            const byOffset = await readListing<{ id: string }>(pool, newest(owner, order), [], {
              limit,
              offset: walked.length,
            });
            expect(page.rows.map((row) => row.id)).toEqual(byOffset.rows.map((row) => row.id));
            // The statement's columns and nothing of the listing's own (its total, each row's position).
            for (const row of [...page.rows, ...byOffset.rows]) expect(Object.keys(row)).toEqual(['id', 'madeAt']);
            expect(page.total).toBe(unique.length);
            walked.push(...page.rows.map((row) => row.id));
            expect(page.next === null).toBe(walked.length === unique.length);
            if (!page.next) break;
            request = { limit, after: page.next };
          }
          expect(walked).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('seeks after a position without OFFSET, so an item added or deleted before it moves nothing', async () => {
    const owner = 10_000;
    const ids = [
      '0190a000-0000-7000-8000-000000000001',
      '0190a000-0000-7000-8000-000000000002',
      '0190a000-0000-7000-8000-000000000003',
    ];
    for (const id of ids) await pool.query('INSERT INTO entries VALUES ($1, $2, $3)', [id, owner, at(5)]);
    const first = await readListing<{ id: string }>(pool, newest(owner), [], { limit: 1, offset: 0 });
    expect(first.rows.map((row) => row.id)).toEqual([ids[2]]);
    await pool.query('DELETE FROM entries WHERE id = $1', [ids[2]]);
    await pool.query('INSERT INTO entries VALUES ($1, $2, $3)', ['0190a000-0000-7000-8000-000000000009', owner, at(9)]);
    const second = await readListing<{ id: string }>(pool, newest(owner), [], { limit: 5, after: first.next! });
    expect(second.rows.map((row) => row.id)).toEqual([ids[1], ids[0]]);
    expect(second.next).toBeNull();
  });
});
