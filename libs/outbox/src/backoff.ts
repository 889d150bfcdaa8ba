import { backoff } from '@recipes/messaging';

/**
 * 0.5 s, 1 s, 2 s … up to 30 s: how long a relay waits after failures in a row, and a failed row before its next try.
 */
export const backoffMs = backoff({ firstMs: 500, maxMs: 30_000 });
