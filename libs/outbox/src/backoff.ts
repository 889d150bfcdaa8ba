/** The longest a relay waits after failures in a row, and the latest a failed row is tried again. */
export const MAX_BACKOFF_MS = 30_000;

/** 0.5 s, 1 s, 2 s … capped: how long to wait after the n-th failure in a row. */
export function backoffMs(failures: number): number {
  return Math.min(500 * 2 ** (failures - 1), MAX_BACKOFF_MS);
}
