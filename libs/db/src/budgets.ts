import { fileURLToPath } from 'node:url';
import type { MigrationSet } from './migrate.js';
import type { Queryable } from './pool.js';

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
 * Spends `amount` of `key`'s budget in this window, or nothing when that would go over `max` (then
 * `allowed` is false). Run it in the transaction that does what it pays for: a rollback gives the amount
 * back, and the row it locks makes a key's concurrent spendings take turns, so that none overspends.
 * The key's rows of earlier windows are deleted on the way.
 */
export async function spendBudget(db: Queryable, { name, max, windowMs }: Budget, key: string, amount: number): Promise<BudgetSpending> {
  const { rows } = await db.query<{ spent: number | null; resetSeconds: number }>(
    `WITH current_window AS (
       SELECT date_bin(make_interval(secs => $3::float8 / 1000), now(), 'epoch'::timestamptz) AS start
     ), earlier AS (
       DELETE FROM budgets USING current_window WHERE name = $1::text AND key = $2::text AND window_start < current_window.start
     ), spent AS (
       INSERT INTO budgets AS b (name, key, window_start, spent)
       SELECT $1, $2, start, $4::int FROM current_window WHERE $4::int <= $5::int
       ON CONFLICT (name, key, window_start) DO UPDATE SET spent = b.spent + EXCLUDED.spent WHERE b.spent + EXCLUDED.spent <= $5::int
       RETURNING b.spent
     )
     SELECT (SELECT spent FROM spent) AS spent,
            ceil(extract(epoch FROM start + make_interval(secs => $3::float8 / 1000) - now()))::int AS "resetSeconds"
       FROM current_window`,
    [name, key, windowMs, amount, max],
  );
  const { spent, resetSeconds } = rows[0]!;
  // At least a second: a window ending this instant is still the one that refused.
  const reset = Math.max(1, resetSeconds);
  return spent === null ? { allowed: false, remaining: 0, resetSeconds: reset } : { allowed: true, remaining: max - spent, resetSeconds: reset };
}
