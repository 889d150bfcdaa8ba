import { fileURLToPath } from 'node:url';
import type { MigrationSet } from './migrate.js';
import type { Queryable } from './pool.js';
import { query, type Sql, sql } from './sql.js';

/**
 * The `budgets` table, migrated into the using service's schema (its `sharedMigrations`). The folder sits
 * next to src/ and dist/, so the same relative path works from both.
 */
export const budgetMigrations: MigrationSet = {
  dir: fileURLToPath(new URL('../budget-migrations', import.meta.url)),
  table: 'budget_migrations',
};

/** `max` units per key in each fixed window of `windowMs` (windows start at multiples of it since the epoch). */
export interface Budget {
  name: string;
  max: number;
  windowMs: number;
}

/** What spending came to: whether it was allowed, what is left, and the seconds until the window ends. */
export interface BudgetSpending {
  allowed: boolean;
  remaining: number;
  resetSeconds: number;
}

/**
 * A spending as CTEs, to open a statement that also does what it pays for, so that both are one atomic
 * statement: `spent` has a row when the amount was spent, and `spending` one row, its `spent` (null when
 * refused) and `resetSeconds`. `onlyIf` holds the spending back when false: when what it pays for cannot
 * happen, nothing is spent. The key's rows of earlier windows are deleted on the way; the row it locks
 * makes a key's concurrent spendings take turns.
 */
export function spendingCtes(
  { name, max, windowMs }: Budget,
  key: string,
  amount: number,
  onlyIf: Sql = sql`true`,
): Sql {
  return sql`current_window AS (
       SELECT date_bin(make_interval(secs => ${windowMs}::float8 / 1000), now(), 'epoch'::timestamptz) AS start
     ), earlier AS (
       DELETE FROM budgets USING current_window WHERE name = ${name}::text AND key = ${key}::text AND window_start < current_window.start
     ), spent AS (
       INSERT INTO budgets AS b (name, key, window_start, spent)
       SELECT ${name}::text, ${key}::text, start, ${amount}::int FROM current_window WHERE ${amount}::int <= ${max}::int AND ${onlyIf}
       ON CONFLICT (name, key, window_start) DO UPDATE SET spent = b.spent + EXCLUDED.spent WHERE b.spent + EXCLUDED.spent <= ${max}::int
       RETURNING b.spent
     ), spending AS (
       SELECT (SELECT spent FROM spent) AS spent,
              ceil(extract(epoch FROM start + make_interval(secs => ${windowMs}::float8 / 1000) - now()))::int AS "resetSeconds"
         FROM current_window
     )`;
}

/** What the `spending` row of `spendingCtes` means for a budget of `max`. */
export function spendingOf(
  max: number,
  { spent, resetSeconds }: { spent: number | null; resetSeconds: number },
): BudgetSpending {
  // At least a second: a window ending this instant is still the one that refused.
  const reset = Math.max(1, resetSeconds);
  return spent === null
    ? { allowed: false, remaining: 0, resetSeconds: reset }
    : { allowed: true, remaining: max - spent, resetSeconds: reset };
}

/**
 * Spends `amount` of `key`'s budget in this window, or nothing when that would go over `max` (then
 * `allowed` is false). Run it in the transaction that does what it pays for (or fold `spendingCtes` into
 * that statement): a rollback gives the amount back.
 */
export async function spendBudget(db: Queryable, budget: Budget, key: string, amount: number): Promise<BudgetSpending> {
  const { text, values } = query(
    sql`WITH ${spendingCtes(budget, key, amount)} SELECT spent, "resetSeconds" FROM spending`,
  );
  const { rows } = await db.query<{ spent: number | null; resetSeconds: number }>(text, values);
  return spendingOf(budget.max, rows[0]!);
}
