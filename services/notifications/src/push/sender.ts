import type { Pool } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import { backoffMs, OutboxListener, WakeUps } from '@recipes/outbox';
import { claimDuePushes, type DuePush } from '../repository/push-deliveries.js';
import { PUSH_TIMEOUT_MS } from './deliver.js';

/** How long a claimed subscription stays this sender's: past one push's time-out, so it never sends twice at once. */
const LEASE_MS = PUSH_TIMEOUT_MS * 3;

export interface PushSenderSettings {
  pool: Pool;
  /** The service's schema: the push trigger notifies on `<schema>_push`. */
  schema: string;
  databaseUrl?: string;
  logger: Logger;
  /**
   * Handles one push; `stopping` aborts when the sender stops, so that a hanging endpoint does not hold up a shutdown.
   */
  deliver(push: DuePush, stopping: AbortSignal): Promise<void>;
  /** Pushes in flight at once, over every endpoint. */
  maxInFlight?: number;
  /** How often to look at the table when nothing wakes the sender. */
  pollIntervalMs?: number;
}

/**
 * Sends the pushes of the push outbox (push_deliveries, migrations/013_push.sql), the way the outbox relay
 * publishes events (libs/outbox): woken by the trigger's NOTIFY, by a push finishing or coming due, and by
 * polling as the fallback. Each claim leases whole subscriptions, one push each, so an endpoint gets one
 * push at a time; up to `maxInFlight` go at once, so an endpoint that hangs holds one slot for its
 * time-out and delays no other.
 */
export class PushSender {
  private readonly wakeUps = new WakeUps(() => this.running);
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly listener: OutboxListener;
  private readonly maxInFlight: number;
  private readonly pollIntervalMs: number;
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly settings: PushSenderSettings) {
    const { pool, schema, databaseUrl, logger, maxInFlight = 50, pollIntervalMs = 1_000 } = settings;
    this.maxInFlight = maxInFlight;
    this.pollIntervalMs = pollIntervalMs;
    this.listener = new OutboxListener({
      pool,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      channel: `${schema}_push`,
      logger,
      onNotification: this.wakeUps.notify,
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.listener.start();
    this.loop = this.run();
  }

  /** Stops claiming, cuts the pushes in flight short (they are due again at once), and waits for them. */
  async stop(): Promise<void> {
    if (!this.running) return this.loop;
    this.running = false;
    this.stopping.abort();
    this.wakeUps.wakeAll();
    await Promise.all([this.loop, this.listener.stop(), ...this.inFlight]);
  }

  /** A push put back is due in `ms`: look again then. */
  readonly wakeAfter = (ms: number): void => {
    setTimeout(this.wakeUps.notify, ms + 20).unref();
  };

  private async run(): Promise<void> {
    const { pool, logger } = this.settings;
    let failures = 0;
    while (this.running) {
      this.wakeUps.batchBegins();
      const room = this.maxInFlight - this.inFlight.size;
      if (room > 0) {
        try {
          const claimed = await claimDuePushes(pool, room, LEASE_MS);
          failures = 0;
          for (const push of claimed) this.send(push);
          // A full claim means more may be due.
          if (claimed.length === room && this.inFlight.size < this.maxInFlight) continue;
        } catch (err) {
          failures += 1;
          logger.error({ err }, 'push sender could not claim pushes; retrying');
          await this.wakeUps.sleep(backoffMs(failures));
          continue;
        }
      }
      await this.wakeUps.sleep(this.pollIntervalMs);
    }
  }

  private send(push: DuePush): void {
    const sending: Promise<void> = this.settings
      .deliver(push, this.stopping.signal)
      // Its lease runs out and another claim tries it again.
      .catch((err: unknown) =>
        this.settings.logger.warn(
          { err, subscriptionId: push.subscription.id },
          'push could not be handled; retried when its lease ends',
        ),
      )
      .finally(() => {
        this.inFlight.delete(sending);
        this.wakeUps.notify();
      });
    this.inFlight.add(sending);
  }
}
