export interface FailureCounterOptions {
  /** Failures a key may have in its window; the next attempt is refused until the window ends. */
  limit: number;
  windowMs: number;
  /** Keys held at most; past that the oldest is forgotten, so memory stays bounded whatever the traffic. */
  maxKeys: number;
  /** Milliseconds on a clock that never goes back. */
  now?: () => number;
}

/** One failure counted, which can be taken back. */
export interface CountedFailure {
  forgive(): void;
}

/**
 * Failures per key in a window from each key's first: in this instance's memory, or shared (`sharedFailureCounter`).
 */
export interface FailureCounter {
  /** Milliseconds until `key` may try again; 0 while it is under its limit. */
  retryAfterMs(key: string): number | Promise<number>;
  /** Counts a failure of `key`. Forgiving it later takes back this one only, even once its window has ended. */
  add(key: string): CountedFailure | Promise<CountedFailure>;
  clear(key: string): void | Promise<void>;
}

interface Tally {
  count: number;
  endsAt: number;
}

/**
 * Failures per key, in memory, in a fixed window from each key's first failure. All windows are as long,
 * so the map's insertion order is also the order they end in: ended ones are swept from the front, and
 * when the map is full, the one nearest its end goes first.
 */
export function failureCounter({
  limit,
  windowMs,
  maxKeys,
  now = () => performance.now(),
}: FailureCounterOptions): FailureCounter & { readonly size: number } {
  const tallies = new Map<string, Tally>();

  const sweep = (time: number) => {
    for (const [key, tally] of tallies) {
      if (tally.endsAt > time) break;
      tallies.delete(key);
    }
  };

  const current = (key: string, time: number) => {
    const tally = tallies.get(key);
    return tally && tally.endsAt > time ? tally : undefined;
  };

  return {
    /** Milliseconds until `key` may try again; 0 while it is under its limit. */
    retryAfterMs(key: string): number {
      const time = now();
      const tally = current(key, time);
      return tally && tally.count >= limit ? tally.endsAt - time : 0;
    },

    /** Counts a failure of `key`. Forgiving it later takes back this one only, even once its window has ended. */
    add(key: string): CountedFailure {
      const time = now();
      sweep(time);
      let tally = current(key, time);
      if (!tally) {
        tally = { count: 0, endsAt: time + windowMs };
        tallies.set(key, tally);
        if (tallies.size > maxKeys) tallies.delete(tallies.keys().next().value!);
      }
      tally.count++;
      const counted = tally;
      let forgiven = false;
      return {
        forgive: () => {
          if (forgiven) return;
          forgiven = true;
          counted.count--;
        },
      };
    },

    clear(key: string): void {
      tallies.delete(key);
    },

    get size(): number {
      return tallies.size;
    },
  };
}
