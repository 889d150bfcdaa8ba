import pg from 'pg';
import type { EventEnvelope } from '@recipes/contracts';
import type { Logger } from '@recipes/logging';
import type { Publisher } from '@recipes/messaging';
import { type Pool, withTransaction } from '@recipes/db';

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
  /** How often to look at the table when no notification arrives (the fallback). Default 1 s. */
  pollIntervalMs?: number;
}

export interface OutboxBacklog {
  /** Rows not yet published. */
  count: number;
  /** Age of the oldest of them; null when there are none. */
  oldestAgeMs: number | null;
}

const MAX_BACKOFF_MS = 30_000;

/** 0.5 s, 1 s, 2 s … capped: how long to wait after the n-th failure in a row. */
function backoffMs(failures: number): number {
  return Math.min(500 * 2 ** (failures - 1), MAX_BACKOFF_MS);
}

// SKIP LOCKED lets several relays work on the same table: each claims rows the others have not locked.
const CLAIM = `
  SELECT id, payload FROM outbox
   WHERE available_at <= now()
   ORDER BY created_at, id
   LIMIT $1
   FOR UPDATE SKIP LOCKED`;

// A row that failed is kept and tried again later, each time a little later (the same curve as backoffMs).
const RESCHEDULE = `
  UPDATE outbox
     SET attempts = outbox.attempts + 1,
         last_error = failed.error,
         available_at = clock_timestamp() + least($3::float8, 500 * power(2, outbox.attempts)) * interval '1 millisecond'
    FROM unnest($1::uuid[], $2::text[]) AS failed(id, error)
   WHERE outbox.id = failed.id`;

/**
 * Publishes the rows of a service's outbox and deletes each one once the broker has confirmed it. A row
 * whose publish fails stays, and is retried with backoff, so no event is lost while the broker is down.
 * It wakes on the outbox trigger's NOTIFY, and polls as a fallback for when the notification is missed.
 */
export class OutboxRelay {
  private readonly pool: Pool;
  private readonly publisher: Publisher;
  private readonly logger: Logger;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly channel: string;
  private readonly listenConfig: pg.ClientConfig;
  private running = false;
  private loop: Promise<void> | undefined;
  private listener: pg.Client | undefined;
  private listenFailures = 0;
  private listenRetry: NodeJS.Timeout | undefined;
  /** Set by a notification; a batch in flight when it arrives is followed by another at once. */
  private wakeRequested = false;
  /** One per batch loop that is sleeping: a notification ends one sleep, stop ends them all. */
  private readonly sleepers = new Set<() => void>();

  constructor({ pool, schema, databaseUrl, publisher, logger, batchSize = 500, concurrency = 3, pollIntervalMs = 1_000 }: OutboxRelaySettings) {
    this.pool = pool;
    this.publisher = publisher;
    this.logger = logger;
    this.batchSize = batchSize;
    this.concurrency = Math.max(1, concurrency);
    this.pollIntervalMs = pollIntervalMs;
    this.channel = `${schema}_outbox`;
    const base: pg.ClientConfig = databaseUrl ? { connectionString: databaseUrl } : { ...pool.options };
    // keepAlive: the LISTEN connection is idle most of the time, and a dead peer must still be noticed.
    this.listenConfig = { ...base, application_name: `${base.application_name ?? 'outbox'}:relay`, keepAlive: true };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.listen();
    this.loop = Promise.all(Array.from({ length: this.concurrency }, () => this.run())).then(() => undefined);
  }

  /** Stops after the batches in flight, if any, have been published and committed. */
  async stop(): Promise<void> {
    if (!this.running) return this.loop;
    this.running = false;
    for (const wakeUp of this.sleepers) wakeUp();
    clearTimeout(this.listenRetry);
    const listener = this.listener;
    this.listener = undefined;
    await Promise.all([this.loop, listener?.end().catch(() => undefined)]);
  }

  /** Cheap enough for a readiness check or a metrics scrape: rows are deleted once published. */
  async backlog(): Promise<OutboxBacklog> {
    const { rows } = await this.pool.query<{ count: number; oldest_age_ms: number | null }>(
      `SELECT count(*)::int AS count, (extract(epoch FROM now() - min(created_at)) * 1000)::float8 AS oldest_age_ms FROM outbox`,
    );
    return { count: rows[0]?.count ?? 0, oldestAgeMs: rows[0]?.oldest_age_ms ?? null };
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.wakeRequested = false;
      try {
        const claimed = await this.relayBatch();
        failures = 0;
        // A full batch means more may be waiting: go on at once, and bring another loop in.
        if (claimed < this.batchSize) await this.sleep(this.pollIntervalMs);
        else this.wakeOneSleeper();
      } catch (err) {
        failures += 1;
        const retryInMs = backoffMs(failures);
        this.logger.error({ err, retryInMs }, 'outbox relay failed; retrying');
        await this.sleep(retryInMs);
      }
    }
  }

  /** Claims, publishes and settles one batch in one transaction; returns how many rows it claimed. */
  private async relayBatch(): Promise<number> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ id: string; payload: EventEnvelope }>(CLAIM, [this.batchSize]);
      if (rows.length === 0) return 0;
      // All at once: the confirms come back together instead of one round trip per event.
      const results = await Promise.allSettled(rows.map(async (row) => this.publisher.publish(row.payload)));
      const published: string[] = [];
      const failed: string[] = [];
      const errors: string[] = [];
      results.forEach((result, index) => {
        const id = rows[index]!.id;
        if (result.status === 'fulfilled') published.push(id);
        else {
          failed.push(id);
          errors.push(result.reason instanceof Error ? result.reason.message : String(result.reason));
        }
      });
      if (published.length > 0) await client.query('DELETE FROM outbox WHERE id = ANY($1::uuid[])', [published]);
      if (failed.length > 0) {
        await client.query(RESCHEDULE, [failed, errors, MAX_BACKOFF_MS]);
        this.logger.warn({ failed: failed.length, published: published.length, firstError: errors[0] }, 'outbox events not published; retrying later');
      }
      return rows.length;
    });
  }

  /** Waits `ms`, or less when a notification arrives (or has arrived since the last batch began). */
  private async sleep(ms: number): Promise<void> {
    if (this.wakeRequested || !this.running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const sleepers = this.sleepers;
      function done() {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      }
      sleepers.add(done);
    });
  }

  /**
   * One loop is enough for what one notification announces: waking them all would have the others claim
   * nothing, in a transaction each, after every commit of the service.
   */
  private readonly wake = (): void => {
    this.wakeRequested = true;
    this.wakeOneSleeper();
  };

  private wakeOneSleeper(): void {
    const [wakeUp] = this.sleepers;
    wakeUp?.();
  }

  /** A dedicated connection for LISTEN, made again whenever it is lost; the polling covers the gap. */
  private listen(): void {
    if (!this.running) return;
    const client = new pg.Client(this.listenConfig);
    this.listener = client;
    const lost = (err?: Error) => {
      if (this.listener !== client) return; // stopped, or already handled ('error' is followed by 'end')
      this.listener = undefined;
      client.end().catch(() => undefined);
      if (!this.running) return;
      this.listenFailures += 1;
      const retryInMs = backoffMs(this.listenFailures);
      this.logger.warn({ err, retryInMs }, 'outbox listener lost its database connection; polling meanwhile');
      this.listenRetry = setTimeout(() => this.listen(), retryInMs);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('connection ended')));
    client.on('notification', this.wake);
    client
      .connect()
      .then(() => client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`))
      .then(() => {
        if (this.listener !== client) return;
        this.listenFailures = 0;
        this.wake(); // rows may have been written while nobody was listening
      })
      .catch(lost);
  }
}
