import type { Pool } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import type { Publisher } from '@recipes/messaging';
import { backoffMs } from './backoff.js';
import { relayBatch } from './batch.js';
import { CommitWakeUps } from './commit-wake-ups.js';
import { WakeUps } from './wake-ups.js';
import { OUTBOX_WRITTEN } from './writer-wake.js';

/** How long after a put-back row's time a loop looks for it. */
const PUT_BACK_MARGIN_MS = 20;

export interface OutboxRelaySettings {
  pool: Pool;
  /** The service's schema: its outbox trigger notifies on `<schema>_outbox`. */
  schema: string;
  /** For the LISTEN connection; the pool's connection settings when omitted. */
  databaseUrl?: string;
  publisher: Publisher;
  logger: Logger;
  /** Rows claimed and published at once; 100 to 500 suits. Default 500. */
  batchSize?: number;
  /**
   * Batches in flight at once, each in its own transaction (SKIP LOCKED keeps them apart): while one
   * waits for the broker's confirms, the next is claimed and sent. Only a backlog brings them all to
   * work (a full batch wakes the next loop); a notification wakes one. Default 3: a backlog then holds
   * three of the pool's connections, and the rest stay free for requests.
   */
  concurrency?: number;
  /**
   * How often to look at the table when no notification arrives (the fallback), in one loop: the others
   * sleep until something wakes them. Default 1 s.
   */
  pollIntervalMs?: number;
}

export interface OutboxBacklog {
  /** Rows not yet published. */
  count: number;
  /** Age of the oldest of them; null when there are none. */
  oldestAgeMs: number | null;
}

/**
 * Publishes the rows of a service's outbox and deletes each one once the broker has confirmed it. A row
 * whose publish fails stays, and is retried with backoff, so no event is lost while the broker is down.
 * It wakes when its own process commits outbox rows on `pool`, if the pool has `WRITER_WAKE_SETTINGS`, on the
 * outbox trigger's NOTIFY for rows anyone else writes (both `CommitWakeUps`, commit-wake-ups.ts), and polls as
 * a fallback for a wake-up missed.
 *
 * This file runs the batch loops; one batch is `relayBatch` (batch.ts), and what ends a loop's sleep is
 * `WakeUps` (wake-ups.ts).
 */
export class OutboxRelay {
  private readonly pool: Pool;
  private readonly publisher: Publisher;
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly commits: CommitWakeUps;
  private readonly wakeUps = new WakeUps(() => this.running);
  private running = false;
  private loop: Promise<void> | undefined;

  constructor({
    pool,
    schema,
    databaseUrl,
    publisher,
    logger,
    batchSize = 500,
    concurrency = 3,
    pollIntervalMs = 1_000,
  }: OutboxRelaySettings) {
    this.pool = pool;
    this.publisher = publisher;
    this.logger = logger;
    this.batchSize = batchSize;
    this.concurrency = Math.max(1, concurrency);
    this.pollIntervalMs = pollIntervalMs;
    this.commits = new CommitWakeUps({
      pool,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      channel: `${schema}_outbox`,
      notice: OUTBOX_WRITTEN,
      logger,
      onNotification: this.wakeUps.notify,
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.commits.start();
    // One loop polls; a wake-up missed is found as well by one look a second as by three.
    this.loop = Promise.all(Array.from({ length: this.concurrency }, (_, index) => this.run(index === 0))).then(
      () => undefined,
    );
  }

  /** Stops after the batches in flight, if any, have been published and committed. */
  async stop(): Promise<void> {
    if (!this.running) return this.loop;
    this.running = false;
    this.wakeUps.wakeAll();
    await Promise.all([this.loop, this.commits.stop()]);
  }

  /**
   * A loop looks again once rows put back may be tried: only the polling loop would find them otherwise,
   * up to a poll interval late. A little after their time, as the database's clock decides it.
   */
  private readonly wakeAfter = (retryInMs: number): void => {
    setTimeout(this.wakeUps.notify, retryInMs + PUT_BACK_MARGIN_MS).unref();
  };

  /**
   * The broker is back: the rows put back after failed publishes are due at once, and a batch loop
   * wakes, so that what waited in the outbox through an outage goes out now rather than at the end of
   * its pause (up to 30 s after failures in a row).
   */
  async retryNow(): Promise<void> {
    await this.pool.query('UPDATE outbox SET available_at = clock_timestamp() WHERE available_at > clock_timestamp()');
    this.wakeUps.notify();
  }

  /** Cheap enough for a readiness check or a metrics scrape: rows are deleted once published. */
  async backlog(): Promise<OutboxBacklog> {
    const { rows } = await this.pool.query<{ count: number; oldest_age_ms: number | null }>(
      `SELECT count(*)::int AS count, (extract(epoch FROM now() - min(created_at)) * 1000)::float8 AS oldest_age_ms FROM outbox`,
    );
    return { count: rows[0]?.count ?? 0, oldestAgeMs: rows[0]?.oldest_age_ms ?? null };
  }

  /** One batch loop (`runBatchLoop`): the one that `polls` sleeps at most `pollIntervalMs`. */
  private run(polls: boolean): Promise<void> {
    return runBatchLoop({
      wakeUps: this.wakeUps,
      isRunning: () => this.running,
      batch: () =>
        relayBatch({
          pool: this.pool,
          publisher: this.publisher,
          logger: this.logger,
          batchSize: this.batchSize,
          onPutBack: this.wakeAfter,
        }),
      batchSize: this.batchSize,
      pollIntervalMs: polls ? this.pollIntervalMs : undefined,
      logger: this.logger,
    });
  }
}

export interface BatchLoopSettings {
  wakeUps: WakeUps;
  isRunning: () => boolean;
  /** One batch (`relayBatch`): resolves to how many rows it claimed. */
  batch: () => Promise<number>;
  batchSize: number;
  /** For the loop that polls: the longest it sleeps. The others sleep until woken. */
  pollIntervalMs?: number;
  logger: Logger;
}

/**
 * One batch loop: a batch, then a sleep until a notification, or the next poll for the loop that polls;
 * or a growing pause after failures. Exported for the model test of wake-ups (test/wake-ups.test.ts).
 */
export async function runBatchLoop({
  wakeUps,
  isRunning,
  batch,
  batchSize,
  pollIntervalMs,
  logger,
}: BatchLoopSettings): Promise<void> {
  let failures = 0;
  while (isRunning()) {
    // Before the batch's transaction begins, so its claim finds every row announced until now.
    wakeUps.batchBegins();
    try {
      const claimed = await batch();
      failures = 0;
      // A full batch means more may be waiting: go on at once, and bring another loop in.
      if (claimed < batchSize) await wakeUps.sleep(pollIntervalMs);
      else wakeUps.wakeOne();
    } catch (err) {
      failures += 1;
      const retryInMs = backoffMs(failures);
      logger.error({ err, retryInMs }, 'outbox relay failed; retrying');
      await wakeUps.sleep(retryInMs);
    }
  }
}
