/**
 * Delays that double after each failure in a row, from `firstMs` up to `maxMs`: the one curve every retry
 * loop here waits by (the outbox relay and its put-back rows, a consumer held by a dependency, a start
 * waiting for the database).
 */
export function backoff({ firstMs, maxMs }: { firstMs: number; maxMs: number }) {
  /** How long to wait after the `failures`-th failure in a row (1 for the first). */
  return (failures: number): number => Math.min(firstMs * 2 ** (Math.max(failures, 1) - 1), maxMs);
}
