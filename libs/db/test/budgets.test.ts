import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  budgetMigrations,
  createPool,
  migrate,
  type Pool,
  query,
  spendBudget,
  spendingCtes,
  spendingOf,
  sql,
  withTransaction,
} from '../src/index.js';

const silent = { info: () => undefined, warn: () => undefined };

describe('budgets', () => {
  let database: TestDatabase;
  let pool: Pool;
  let keys = 0;
  const freshKey = () => `key-${++keys}`;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate({ databaseUrl: database.url, schema: 'budgeted', sets: [budgetMigrations], logger: silent });
    pool = createPool({
      connectionString: database.url,
      schema: 'budgeted',
      applicationName: 'budgets-test',
      logger: silent,
    });
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const hourly = { name: 'things', max: 10, windowMs: 3_600_000 };

  it('allows whatever fits in the window, refuses the rest whole, and counts what a rollback gives back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ amount: fc.integer({ min: 0, max: 12 }), rolledBack: fc.boolean() }), { maxLength: 12 }),
        async (spendings) => {
          const key = freshKey();
          let spent = 0;
          for (const { amount, rolledBack } of spendings) {
            const outcome = await withTransaction(pool, async (tx) => {
              const result = await spendBudget(tx, hourly, key, amount);
              if (rolledBack) throw Object.assign(new Error('rolled back'), { result });
              return result;
            }).catch((error: { result: Awaited<ReturnType<typeof spendBudget>> }) => error.result);
            const fits = spent + amount <= hourly.max;
            expect(outcome.allowed).toBe(fits);
            if (fits && !rolledBack) spent += amount;
            expect(outcome.remaining).toBe(fits ? hourly.max - spent - (rolledBack ? amount : 0) : 0);
            expect(outcome.resetSeconds).toBeGreaterThan(0);
            expect(outcome.resetSeconds).toBeLessThanOrEqual(3600);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('starts afresh in a new window, and deletes the key’s rows of the earlier ones', async () => {
    const key = freshKey();
    expect((await spendBudget(pool, hourly, key, 10)).allowed).toBe(true);
    // The same spending, as if it had happened two hours ago.
    await pool.query(`UPDATE budgets SET window_start = window_start - interval '2 hours' WHERE key = $1`, [key]);
    expect(await spendBudget(pool, hourly, key, 10)).toMatchObject({ allowed: true, remaining: 0 });
    const { rows } = await pool.query(`SELECT spent FROM budgets WHERE key = $1`, [key]);
    expect(rows).toEqual([{ spent: 10 }]);
  });

  it('lets concurrent spendings of one key take turns, so that none overspends', async () => {
    const key = freshKey();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => withTransaction(pool, (tx) => spendBudget(tx, hourly, key, 3))),
    );
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(3);
  });

  it('spends nothing, folded into a statement, when what it pays for cannot happen (onlyIf)', async () => {
    const key = freshKey();
    const spendIf = async (possible: boolean) => {
      const { text, values } = query(
        sql`WITH ${spendingCtes(hourly, key, 4, sql`${possible}::boolean`)} SELECT spent, "resetSeconds" FROM spending`,
      );
      const { rows } = await pool.query<{ spent: number | null; resetSeconds: number }>(text, values);
      return spendingOf(hourly.max, rows[0]!);
    };
    expect(await spendIf(false)).toMatchObject({ allowed: false });
    expect(await spendIf(true)).toMatchObject({ allowed: true, remaining: 6 });
    expect(await spendIf(false)).toMatchObject({ allowed: false });
    expect(await spendBudget(pool, hourly, key, 6)).toMatchObject({ allowed: true, remaining: 0 });
  });
});
