import { setTimeout as delay } from 'node:timers/promises';
import type { Pool } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import { backoffMs, CommitWakeUps, WakeUps } from '@recipes/outbox';
import { claimDuePushes, type DuePush } from '../repository/push-deliveries.js';
import { type Handled, PUSH_TIMEOUT_MS } from './deliver.js';
import { PushSettlements } from './settlements.js';

/** What the push trigger raises, instead of notifying, on a connection with the writer's wake (migrations/017). */
const PUSH_QUEUED = 'push queued';

/** How long a claimed subscription stays this sender's: past one push's time-out, so it never sends twice at once. */
const LEASE_MS = PUSH_TIMEOUT_MS * 3;

export interface PushSenderSettings {
  pool: Pool;
  /** The service's schema: the push trigger notifies on `<schema>_push`. */
  schema: string;
  databaseUrl?: string;
  logger: Logger;
  /**
   * Handles one push and says what became of it, leaving its row to the sender; `stopping` aborts when the sender
   * stops, so that a hanging endpoint does not hold up a shutdown.
   */
  deliver(push: DuePush, stopping: AbortSignal): Promise<Handled>;
  /** Pushes in flight at once, over every endpoint. */
  maxInFlight?: number;
  /** How often to look at the table when nothing wakes the sender. */
  pollIntervalMs?: number;
  /** How long a wake-up waits before its claim, gathering the pushes queued meanwhile into it. */
  gatherMs?: number;
}

/**
 * Sends the pushes of the push outbox (push_deliveries, migrations/013_push.sql), the way the outbox relay
 * publishes events (libs/outbox): woken when its own process commits pushes on `pool` (the trigger's notice), by
 * the trigger's NOTIFY for pushes anyone else queues, by a push coming due, and by polling as the fallback. Each
 * claim leases whole subscriptions, one push each, so an endpoint gets one push at a time; up to `maxInFlight`
 * go at once, so an endpoint that hangs holds one slot for its time-out and delays no other. A push's row is
 * settled in one statement with others handled meanwhile (settlements.ts), which claims its subscription's next
 * due push in its place: two round trips a push at most, the claim (or the settlement before) and its
 * settlement, and no claim after each push.
 */
export class PushSender {
  private readonly wakeUps = new WakeUps(() => this.running);
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly commits: CommitWakeUps;
  private readonly settlements: PushSettlements;
  private readonly maxInFlight: number;
  private readonly pollIntervalMs: number;
  private readonly gatherMs: number;
  private running = false;
  private loop: Promise<void> | undefined;
  /** Claims sent so far: one sent while a settlement was under way may have passed a push over (see `settle`). */
  private claimsSent = 0;
  /** Whether the last claim had no room for all that may be due: a slot coming free calls for another. */
  private full = false;

  constructor(private readonly settings: PushSenderSettings) {
    const { pool, schema, databaseUrl, logger, maxInFlight = 50, pollIntervalMs = 1_000, gatherMs = 100 } = settings;
    this.maxInFlight = maxInFlight;
    this.pollIntervalMs = pollIntervalMs;
    this.gatherMs = gatherMs;
    this.settlements = new PushSettlements(pool, LEASE_MS);
    this.commits = new CommitWakeUps({
      pool,
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      channel: `${schema}_push`,
      notice: PUSH_QUEUED,
      logger,
      onNotification: this.wakeUps.notify,
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.commits.start();
    this.loop = this.run();
  }

  /** Stops claiming, cuts the pushes in flight short (they are due again at once), and waits for them. */
  async stop(): Promise<void> {
    if (!this.running) return this.loop;
    this.running = false;
    this.stopping.abort();
    this.wakeUps.wakeAll();
    await Promise.all([this.loop, this.commits.stop(), ...this.inFlight]);
  }

  /** A push put back is due in `ms`: look again then. */
  private wakeAfter(ms: number): void {
    setTimeout(this.wakeUps.notify, ms + 20).unref();
  }

  private async run(): Promise<void> {
    const { pool, logger } = this.settings;
    let failures = 0;
    while (this.running) {
      this.wakeUps.batchBegins();
      const room = this.maxInFlight - this.inFlight.size;
      if (room <= 0) this.full = true;
      else {
        try {
          this.claimsSent += 1;
          const claimed = await claimDuePushes(pool, room, LEASE_MS);
          failures = 0;
          // A full claim means more may be due.
          this.full = claimed.length === room;
          for (const push of claimed) this.send(push);
          if (this.full && this.inFlight.size < this.maxInFlight) continue;
        } catch (err) {
          failures += 1;
          logger.error({ err }, 'push sender could not claim pushes; retrying');
          await this.wakeUps.sleep(backoffMs(failures));
          continue;
        }
      }
      await this.wakeUps.sleep(this.pollIntervalMs);
      // A push is not urgent to the millisecond, and a claim, its wake-up and its settlements cost about as
      // much for one push as for several: a moment's wait lets a trickle go in batches.
      if (this.running && this.gatherMs > 0) await delay(this.gatherMs);
    }
  }

  private send(first: DuePush): void {
    const sending: Promise<void> = this.sendInTurn(first)
      // Its lease runs out and another claim tries it again.
      .catch((err: unknown) =>
        this.settings.logger.warn(
          { err, subscriptionId: first.subscription.id },
          'push could not be handled; retried when its lease ends',
        ),
      )
      .finally(() => {
        this.inFlight.delete(sending);
        if (this.full) this.wakeUps.notify();
      });
    this.inFlight.add(sending);
  }

  /** Sends `first`, then the next push of its subscription that settling it claimed, and so on. */
  private async sendInTurn(first: DuePush): Promise<void> {
    for (let push: DuePush | undefined = first; push;) {
      push = await this.settle(push, await this.settings.deliver(push, this.stopping.signal));
    }
  }

  /** Settles a handled push; gives its subscription's next, claimed with it, if one is due. */
  private async settle(push: DuePush, handled: Handled): Promise<DuePush | undefined> {
    if (handled.kind === 'subscription_removed') return undefined;
    const claimsBefore = this.claimsSent;
    const next = await this.settlements.settle({
      push,
      ...(handled.kind === 'retry' ? { retryInMs: handled.delayMs, failed: handled.failed } : {}),
      claimNext: this.running,
    });
    if (handled.kind === 'retry' && handled.failed) this.wakeAfter(handled.delayMs);
    // A claim sent meanwhile may have found the subscription still leased, or locked by this statement, and
    // passed over a push queued for it too late for this statement to see (whose wake-up sent that claim):
    // look again, now that the subscription is free.
    if (!next && this.claimsSent !== claimsBefore) this.wakeUps.notify();
    return next;
  }
}
