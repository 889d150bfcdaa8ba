import { Counter, Gauge, type Registry } from 'prom-client';
import { boundedRead } from './gauges.js';
import { METRIC_PREFIX } from './registry.js';

/** Why a push was not delivered and will not be. */
export type PushFailure = 'expired' | 'gone' | 'rejected';
/** Why a push subscription was removed by the sender or the service, not by its owner. */
export type SubscriptionRemoval = 'gone' | 'rejected' | 'session_ended' | 'over_limit';

/** What a Web Push sender reports (docs/operations.md). */
export interface PushMetrics {
  sent(): void;
  failed(reason: PushFailure): void;
  retried(): void;
  subscriptionsRemoved(reason: SubscriptionRemoval, count?: number): void;
}

/**
 * Counters of the Web Push sender, and a gauge of the pushes waiting to be sent, queried on each scrape
 * (left out while the database does not answer).
 */
export function pushMetrics(registry: Registry, pendingPushes: () => Promise<number>): PushMetrics {
  const sent = new Counter({
    name: `${METRIC_PREFIX}push_sent_total`,
    help: 'Pushes a push service accepted (2xx).',
    registers: [registry],
  });
  const failed = new Counter({
    name: `${METRIC_PREFIX}push_failed_total`,
    help: 'Pushes given up on, by reason: expired (still failing when their TTL passed), gone (404/410), rejected (another 4xx).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const retried = new Counter({
    name: `${METRIC_PREFIX}push_retried_total`,
    help: 'Pushes put back for another try after a 429, a 5xx, a time-out or a network error.',
    registers: [registry],
  });
  const removed = new Counter({
    name: `${METRIC_PREFIX}push_subscriptions_removed_total`,
    help: 'Push subscriptions removed other than by their owner, by reason: gone, rejected, session_ended, over_limit.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const pending = boundedRead(pendingPushes);
  new Gauge({
    name: `${METRIC_PREFIX}push_pending`,
    help: 'Pushes waiting to be sent, retries included.',
    registers: [registry],
    async collect() {
      const value = await pending();
      if (value === undefined) this.remove();
      else this.set(value);
    },
  });
  return {
    sent: () => sent.inc(),
    failed: (reason) => failed.inc({ reason }),
    retried: () => retried.inc(),
    subscriptionsRemoved: (reason, count = 1) => {
      if (count > 0) removed.inc({ reason }, count);
    },
  };
}
