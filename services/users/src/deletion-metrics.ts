import { queriedGauge, type Registry } from '@recipes/metrics';
import type { Deletions } from './deletions.js';

/** How old an incomplete deletion may get before an operator should look (the AccountDeletionStalled alert). */
export const STALLED_AFTER_SECONDS = 3_600;

/** Account deletions some service has not confirmed an hour after they began, read on each scrape. */
export function deletionMetrics(registry: Registry, deletions: Deletions): void {
  queriedGauge(
    registry,
    'account_deletions_incomplete',
    'Account deletions begun more than an hour ago that some service has not yet confirmed erasing.',
    () => deletions.incompleteOlderThan(STALLED_AFTER_SECONDS),
  );
}
