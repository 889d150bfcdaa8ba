import { failureCounter } from './failure-counter.js';

export interface LoginGuardOptions {
  failuresPerUsernameAndAddress: number;
  failuresPerAddress: number;
  windowMs: number;
  /** Keys each counter holds at most (a key is under 200 bytes: an address and a username of ≤ 100). */
  maxKeys?: number;
  now?: () => number;
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
export function loginGuard({ failuresPerUsernameAndAddress, failuresPerAddress, windowMs, maxKeys = 100_000, now }: LoginGuardOptions) {
  const pairs = failureCounter({ limit: failuresPerUsernameAndAddress, windowMs, maxKeys, now });
  const addresses = failureCounter({ limit: failuresPerAddress, windowMs, maxKeys, now });

  return {
    /**
     * Refuses an address over either limit. Otherwise the attempt counts as a failure until it turns out
     * otherwise, so that guesses sent all at once are counted before any of them is checked.
     */
    begin(username: string, address: string): LoginAttempt {
      // An address holds no space, so the first one ends it; usernames match in any case, as at lookup.
      const pair = `${address} ${username.toLowerCase()}`;
      const retryAfterMs = Math.max(pairs.retryAfterMs(pair), addresses.retryAfterMs(address));
      if (retryAfterMs > 0) return { refused: true, retryAfterMs };
      const failures = { pair: pairs.add(pair), address: addresses.add(address) };
      return {
        refused: false,
        succeeded() {
          pairs.clear(pair);
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
