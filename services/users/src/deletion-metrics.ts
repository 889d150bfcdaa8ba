import { accountDeletionMetrics, type Registry } from '@recipes/metrics';
import type { Deletions } from './deletions.js';

/** How old an incomplete deletion may get before an operator should look (the AccountDeletionStalled alert). */
export const STALLED_AFTER_SECONDS = 3_600;

/** The deletions some service has not confirmed an hour after they began, counted on each scrape. */
export function deletionMetrics(registry: Registry, deletions: Deletions): void {
  accountDeletionMetrics(registry, () => deletions.incompleteOlderThan(STALLED_AFTER_SECONDS));
}
