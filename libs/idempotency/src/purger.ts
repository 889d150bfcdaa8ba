import type { Pool } from '@recipes/db';
import { purgeExpiredKeys } from './repository.js';

interface WarnLogger {
  warn(object: object, message: string): void;
}

export interface KeyPurgerSettings {
  pool: Pool;
  logger: WarnLogger;
  everyMs?: number;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Deletes keys past their 24 hours: once at start, so that a service restarted more often than hourly
 * still purges, then every `everyMs`. The timer is unref'd: it never holds the process open.
 */
export class KeyPurger {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly settings: KeyPurgerSettings) {}

  start(): void {
    if (this.timer) return;
    this.purge();
    this.timer = setInterval(() => this.purge(), this.settings.everyMs ?? HOUR_MS);
    this.timer.unref();
  }

  /** Stops the timer and waits for a purge under way, so the pool can close after it. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private purge(): void {
    // One at a time: a slow purge is not piled onto by the next tick.
    this.running = this.running.then(async () => {
      try {
        await purgeExpiredKeys(this.settings.pool);
      } catch (error) {
        // The database away for a moment: the next tick tries again.
        this.settings.logger.warn({ err: error }, 'idempotency keys not purged');
      }
    });
  }
}
