import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry.js';

/** What the broker reports, by event type (see `BrokerMetrics` in @recipes/messaging). */
export interface EventMetrics {
  published(type: string): void;
  publishFailed(type: string): void;
  consumed(type: string): void;
  consumeFailed(type: string): void;
  deadLettered(type: string): void;
  handled(queue: string, type: string, outcome: 'consumed' | 'failed', seconds: number): void;
}

function counter(registry: Registry, name: string, help: string): Counter<'type'> {
  return new Counter({ name: `${METRIC_PREFIX}${name}`, help, labelNames: ['type'] as const, registers: [registry] });
}

/**
 * Counters of events published and consumed by this process, labelled by event type; and the time each
 * handler run took, by queue, type and outcome: its count is how fast the queue is being worked off.
 */
export function eventMetrics(registry: Registry): EventMetrics {
  const published = counter(registry, 'events_published_total', 'Events the broker confirmed, by type.');
  const publishFailures = counter(
    registry,
    'events_publish_failures_total',
    'Publishes the broker refused or did not confirm in time, by type.',
  );
  const consumed = counter(registry, 'events_consumed_total', 'Deliveries handled successfully (and acked), by type.');
  const consumeFailures = counter(
    registry,
    'events_consume_failures_total',
    'Deliveries whose handling failed (retried or dead-lettered), by type.',
  );
  const deadLettered = counter(
    registry,
    'events_dead_lettered_total',
    'Deliveries given up on and sent to the dead-letter queue, by type.',
  );
  const handlerDuration = new Histogram({
    name: `${METRIC_PREFIX}event_handler_duration_seconds`,
    help: 'Time a consumer’s handler took on one delivery, by queue, event type and outcome (consumed or failed).',
    labelNames: ['queue', 'type', 'outcome'] as const,
    registers: [registry],
  });
  return {
    published: (type) => published.inc({ type }),
    publishFailed: (type) => publishFailures.inc({ type }),
    consumed: (type) => consumed.inc({ type }),
    consumeFailed: (type) => consumeFailures.inc({ type }),
    deadLettered: (type) => deadLettered.inc({ type }),
    handled: (queue, type, outcome, seconds) => handlerDuration.observe({ queue, type, outcome }, seconds),
  };
}
