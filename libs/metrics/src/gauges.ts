import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry.js';

/** How long a scrape waits for the database or the broker before it leaves their gauges out. */
export const DEFAULT_READ_TIMEOUT_MS = 1_000;

/**
 * Wraps a read of the database or the broker for scrapes: overlapping scrapes share one read, and each
 * waits at most `timeoutMs`. Resolves undefined when the read fails or is late, so a scrape never fails
 * or hangs because a dependency is down.
 */
export function boundedRead<T>(
  read: () => Promise<T>,
  timeoutMs = DEFAULT_READ_TIMEOUT_MS,
): () => Promise<T | undefined> {
  let pending: Promise<T | undefined> | undefined;
  return async () => {
    pending ??= Promise.resolve()
      .then(read)
      .catch(() => undefined)
      .finally(() => {
        pending = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, undefined);
    });
    try {
      return await Promise.race([pending, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The counts of a pg pool (structurally `pg.Pool`). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** A gauge whose value `read` gives, in memory and at once, on each scrape. */
function readOnScrape(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name: `${METRIC_PREFIX}${name}`,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

/** Clients of the pool and queries queued for one, read from the pool itself on each scrape. */
export function poolMetrics(registry: Registry, pool: PoolCounts): void {
  readOnScrape(registry, 'db_pool_clients', 'Clients the database pool holds, idle or in use.', () => pool.totalCount);
  readOnScrape(registry, 'db_pool_idle_clients', 'Pool clients not in use.', () => pool.idleCount);
  readOnScrape(
    registry,
    'db_pool_waiting_requests',
    'Queries waiting for a pool client because every client is in use.',
    () => pool.waitingCount,
  );
}

/**
 * The event streams (`text/event-stream`) the process holds open, read on each scrape: what a long-lived
 * request costs shows here while it lasts, where the request-duration histogram sees it only as it ends.
 */
export function openStreamsMetric(registry: Registry, openStreams: () => number): void {
  readOnScrape(
    registry,
    'event_streams_open',
    'Event streams (text/event-stream) this process holds open: served, or passed through by the gateway.',
    openStreams,
  );
}

/** The outbox's unpublished rows (structurally `OutboxRelay.backlog()`). */
export interface OutboxBacklog {
  count: number;
  oldestAgeMs: number | null;
}

/**
 * The outbox's backlog and the age of its oldest row, queried on each scrape. While the database does not
 * answer both are left out: no value rather than a stale or made-up one.
 */
export function outboxMetrics(registry: Registry, backlog: () => Promise<OutboxBacklog>, timeoutMs?: number): void {
  // A scrape collects both gauges at once: they share the one query.
  const current = boundedRead(backlog, timeoutMs);
  new Gauge({
    name: `${METRIC_PREFIX}outbox_pending_events`,
    help: 'Outbox rows not yet published to the broker.',
    registers: [registry],
    async collect() {
      const value = await current();
      if (value) this.set(value.count);
      else this.remove();
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}outbox_oldest_event_age_seconds`,
    help: 'Age of the oldest unpublished outbox row; 0 when there is none.',
    registers: [registry],
    async collect() {
      const value = await current();
      if (value) this.set((value.oldestAgeMs ?? 0) / 1_000);
      else this.remove();
    },
  });
}

/** How many messages are ready in a queue, asked of the broker (structurally `Broker.queueDepth`). */
export type QueueDepth = (queue: string) => Promise<number | undefined>;

/**
 * A gauge of the depth of each of `queues`, asked of the broker on each scrape; a queue is left out while it does not
 * answer.
 */
function queueDepthGauge(
  registry: Registry,
  name: string,
  help: string,
  queues: readonly string[],
  depth: QueueDepth,
  timeoutMs?: number,
): void {
  const reads = queues.map((queue) => [queue, boundedRead(() => depth(queue), timeoutMs)] as const);
  new Gauge({
    name: `${METRIC_PREFIX}${name}`,
    help,
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      await Promise.all(
        reads.map(async ([queue, read]) => {
          const value = await read();
          if (value === undefined) this.remove({ queue });
          else this.set({ queue }, value);
        }),
      );
    },
  });
}

/**
 * Messages in the service's dead-letter queue, asked of the broker on each scrape. Left out while the
 * broker does not answer.
 */
export function deadLetterQueueMetrics(registry: Registry, queue: string, depth: QueueDepth, timeoutMs?: number): void {
  queueDepthGauge(
    registry,
    'dead_letter_queue_messages',
    'Messages waiting in the dead-letter queue of this service’s event queue.',
    [queue],
    depth,
    timeoutMs,
  );
}

/**
 * Messages ready in event queues, asked of the broker on each scrape: a consumer asks about its own
 * queue, and a publisher about the queues of its consumers, so a queue's depth is still reported while
 * every consumer of it is down. The depth stands for the consumer's lag: over AMQP the broker tells a
 * queue's count, never the age of its oldest message (reading that takes the message off the queue, or
 * the management plugin's HTTP API); how long the backlog takes follows from the depth and the rate at
 * which the handlers work it off (`recipes_event_handler_duration_seconds_count`).
 */
export function eventQueueMetrics(
  registry: Registry,
  queues: readonly string[],
  depth: QueueDepth,
  timeoutMs?: number,
): void {
  queueDepthGauge(
    registry,
    'event_queue_messages',
    'Messages ready in an event queue, asked of the broker by its consumer and by the services that publish to it.',
    queues,
    depth,
    timeoutMs,
  );
}

/**
 * A gauge of one count a service reads from its own tables on each scrape (a domain's backlog, say); left
 * out while the read fails or is late.
 */
export function queriedGauge(
  registry: Registry,
  name: string,
  help: string,
  read: () => Promise<number>,
  timeoutMs?: number,
): void {
  const current = boundedRead(read, timeoutMs);
  new Gauge({
    name: `${METRIC_PREFIX}${name}`,
    help,
    registers: [registry],
    async collect() {
      const value = await current();
      if (value === undefined) this.remove();
      else this.set(value);
    },
  });
}

/**
 * Account deletions some service has not confirmed erasing more than an hour after they began
 * (docs/api.md §11.2), as the users service counts them on each scrape; AccountDeletionStalled reads it.
 */
export function accountDeletionMetrics(
  registry: Registry,
  incompleteAfterAnHour: () => Promise<number>,
  timeoutMs?: number,
): void {
  queriedGauge(
    registry,
    'account_deletions_incomplete',
    'Account deletions begun more than an hour ago that some service has not yet confirmed erasing.',
    incompleteAfterAnHour,
    timeoutMs,
  );
}
