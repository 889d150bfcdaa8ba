import { failureCounter, type FailureCounter } from './failure-counter.js';

export interface LoginGuardOptions {
  failuresPerUsernameAndAddress: number;
  failuresPerAddress: number;
  windowMs: number;
  /** Keys each counter holds at most (a key is under 200 bytes: an address and a username of ≤ 100). */
  maxKeys?: number;
  now?: () => number;
  /** Where the failures are counted: in this instance's memory unless given (e.g. `sharedFailureCounter`). */
  counter?: (name: 'pairs' | 'addresses', limit: number) => FailureCounter;
}

export type LoginAttempt =
  | { refused: true; retryAfterMs: number }
  | {
      refused: false;
      /** The right password: the pair starts afresh. */
      succeeded(): void;
      /** Neither right nor wrong (the database failed, say): it does not count. */
      abandoned(): void;
    };

/**
 * Failed logins, counted per username and address and per address: an address that keeps failing is
 * refused, for that username or for all, and nobody else is. So guessing from one address cannot lock
 * the owner out, who logs in from another.
 */
export function loginGuard({
  failuresPerUsernameAndAddress,
  failuresPerAddress,
  windowMs,
  maxKeys = 100_000,
  now,
  counter,
}: LoginGuardOptions) {
  const counterOf =
    counter ?? ((_name, limit) => failureCounter({ limit, windowMs, maxKeys, ...(now ? { now } : {}) }));
  const pairs = counterOf('pairs', failuresPerUsernameAndAddress);
  const addresses = counterOf('addresses', failuresPerAddress);

  return {
    /**
     * Refuses an address over either limit. Otherwise the attempt counts as a failure until it turns out
     * otherwise, so that guesses sent all at once are counted before any of them is checked. Fails when
     * the counters cannot be read, so that no attempt goes uncounted.
     */
    async begin(username: string, address: string): Promise<LoginAttempt> {
      // An address holds no space, so the first one ends it; usernames match in any case, as at lookup.
      const pair = `${address} ${username.toLowerCase()}`;
      const retryAfterMs = Math.max(await pairs.retryAfterMs(pair), await addresses.retryAfterMs(address));
      if (retryAfterMs > 0) return { refused: true, retryAfterMs };
      const failures = { pair: await pairs.add(pair), address: await addresses.add(address) };
      return {
        refused: false,
        succeeded() {
          // Not waited for: a pair left counted errs on the side of refusing, and the login has succeeded.
          void Promise.resolve(pairs.clear(pair)).catch(() => undefined);
          // The address keeps its other failures: a login to an account of one's own must not reset them.
          failures.address.forgive();
        },
        abandoned() {
          failures.pair.forgive();
          failures.address.forgive();
        },
      };
    },
  };
}
