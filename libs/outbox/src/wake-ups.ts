/**
 * Where the relay's batch loops sleep between batches, and what ends a sleep early: a notification ends one
 * (and, when it comes while a batch is in flight, the next sleep of that loop before it begins), stopping
 * ends them all.
 */
export class WakeUps {
  /** Set by a notification; a batch in flight when it arrives is followed by another at once. */
  private requested = false;
  /** One per batch loop that is sleeping. */
  private readonly sleepers = new Set<() => void>();

  constructor(private readonly isRunning: () => boolean) {}

  /**
   * A batch begins: what was announced until now, it will find. One flag for all the loops is enough:
   * whichever loop clears it claims after every notification that set it (test/wake-ups.test.ts).
   */
  batchBegins(): void {
    this.requested = false;
  }

  /**
   * Waits `ms` (with none, until woken), or less when a notification arrives (or has arrived since the
   * last batch began).
   */
  async sleep(ms?: number): Promise<void> {
    if (this.requested || !this.isRunning()) return;
    await new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
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
  readonly notify = (): void => {
    this.requested = true;
    this.wakeOne();
  };

  /** Brings one more loop in (a full batch means more may be waiting). */
  wakeOne(): void {
    const [wakeUp] = this.sleepers;
    wakeUp?.();
  }

  /** Ends every sleep, as the relay stops. */
  wakeAll(): void {
    for (const wakeUp of this.sleepers) wakeUp();
  }
}
