import { type ListenerSettings, OutboxListener } from './listener.js';
import { wakeOnNoticedCommits } from './writer-wake.js';

export interface CommitWakeUpsSettings extends ListenerSettings {
  /** What the table's trigger raises, instead of notifying, on a connection with `WRITER_WAKE_SETTINGS`. */
  notice: string;
}

/**
 * What tells a loop working through rows a trigger writes (the relay's outbox, the notifications service's
 * pushes) that more were committed: this process's own commits on `pool`, by the trigger's notice to the writing
 * connection (writer-wake.ts), and anyone else's by the trigger's NOTIFY on `channel` (listener.ts). Both call
 * `onNotification`; the loop still polls for a wake-up missed.
 */
export class CommitWakeUps {
  private readonly listener: OutboxListener;
  private stopWatching: (() => void) | undefined;

  constructor(private readonly settings: CommitWakeUpsSettings) {
    this.listener = new OutboxListener(settings);
  }

  start(): void {
    const { pool, notice, onNotification } = this.settings;
    this.stopWatching = wakeOnNoticedCommits(pool, notice, onNotification);
    this.listener.start();
  }

  async stop(): Promise<void> {
    this.stopWatching?.();
    await this.listener.stop();
  }
}
