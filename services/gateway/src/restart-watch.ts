/** How often a service that every request found restarting is asked whether it is back. */
const PROBE_EVERY_MS = 100;

/** A request's wait for a service whose every instance refused it (restarting): until when it may last. */
export class RestartWait {
  readonly #until: number;

  constructor(restartWaitMs: number) {
    this.#until = Date.now() + restartWaitMs;
  }

  /** Whether the wait still has time left. */
  get open(): boolean {
    return Date.now() < this.#until;
  }

  get msLeft(): number {
    return Math.max(0, this.#until - Date.now());
  }
}

/**
 * The requests that wait for one service to come back, and the one probe that finds it back: they all go on
 * together once an instance answers ready. So they come back as one burst, which the admission lane's waiting
 * room takes in as it takes any burst (admission/waiting-room.ts). Each trying again on its own pauses, they
 * came back spread over a second, a queue that grew for longer than CoDel's interval and was cut with 503s;
 * and the instance that had just started met them all outside the lane.
 */
export class RestartWatch {
  readonly #waiting = new Set<() => void>();
  #probing = false;

  /** `findReady` asks each instance in turn and names the first that answers ready, if one does. */
  constructor(
    private readonly findReady: () => Promise<string | undefined>,
    private readonly onReady: (base: string) => void,
  ) {}

  /** Resolves once the service is back, or once `wait` runs out, whichever is first. */
  until(wait: RestartWait): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, wait.msLeft);
      this.#waiting.add(done);
      void this.#probe();
    });
  }

  async #probe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      // A pause before each look, the first too: a request that an instance answering ready refused again waits
      // that long before it is sent once more, never in a loop.
      while (this.#waiting.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
        const ready = await this.findReady();
        if (ready === undefined) continue;
        this.onReady(ready);
        for (const done of [...this.#waiting]) done();
        return;
      }
    } finally {
      this.#probing = false;
    }
  }
}
