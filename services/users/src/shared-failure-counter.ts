import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CountedFailure, FailureCounter } from './failure-counter.js';

/**
 * Counts `KEYS[1]`'s failure in its window of ARGV[1] ms, begun by its first failure, which ARGV[2] names:
 * the window's name, so that forgiving a failure later touches that window only.
 */
const ADD = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'count', 1, 'window', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return ARGV[2]
end
redis.call('HINCRBY', KEYS[1], 'count', 1)
return redis.call('HGET', KEYS[1], 'window')
`;

/** Takes back one failure of `KEYS[1]` if its window is still ARGV[1]. */
const FORGIVE = `
if redis.call('HGET', KEYS[1], 'window') == ARGV[1] then
  redis.call('HINCRBY', KEYS[1], 'count', -1)
end
return 0
`;

/** The count of `KEYS[1]` and the milliseconds its window has left. */
const STANDING = `
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
return {count, redis.call('PTTL', KEYS[1])}
`;

interface Warn {
  warn(object: object, message: string): void;
}

/**
 * `failureCounter`'s rules, counted in the shared store, so that every instance of the service refuses
 * the same guesser (docs/architecture.md §11). Each key is a hash of its count and its window's name, and
 * expires with its window. A store that is away makes every call fail: a login is then refused (503),
 * never let through uncounted.
 */
export function sharedFailureCounter(
  { redis, prefix }: { redis: Redis; prefix: string },
  { name, limit, windowMs, logger }: { name: string; limit: number; windowMs: number; logger: Warn },
): FailureCounter {
  const keyOf = (key: string) => `${prefix}failures:${name}:${key}`;
  return {
    async retryAfterMs(key) {
      const [count, ttl] = (await redis.eval(STANDING, 1, keyOf(key))) as [number, number];
      return count >= limit && ttl > 0 ? ttl : 0;
    },

    async add(key): Promise<CountedFailure> {
      const window = (await redis.eval(ADD, 1, keyOf(key), windowMs, randomUUID())) as string;
      let forgiven = false;
      return {
        forgive: () => {
          if (forgiven) return;
          forgiven = true;
          // Lost while the store is away: the failure then stays counted, which errs on the side of refusing.
          redis
            .eval(FORGIVE, 1, keyOf(key), window)
            .catch((err: unknown) => logger.warn({ err }, 'a failed login could not be forgiven'));
        },
      };
    },

    async clear(key) {
      await redis.del(keyOf(key));
    },
  };
}

/** `text` matched as it is by a Redis pattern (`SCAN MATCH`): its wildcards and escapes escaped. */
const literally = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Deletes every failed-login count of `username` (any address), counted by `sharedFailureCounter` under `name`:
 * a deleted account's name stays in no count (docs/api.md §11.2). The keys are found by a scan of the store, as the
 * addresses are not known; idempotent.
 */
export async function forgetFailuresOfUsername(
  { redis, prefix }: { redis: Redis; prefix: string },
  name: string,
  username: string,
): Promise<void> {
  // A pair's key ends with the username in lower case, after the address and a space (src/login-guard.ts).
  const pattern = `${literally(`${prefix}failures:${name}:`)}* ${literally(username.toLowerCase())}`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
