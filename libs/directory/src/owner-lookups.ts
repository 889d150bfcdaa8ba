import { LRUCache } from 'lru-cache';

/** How long the owner's "no such thing" is believed. */
export const MISS_TTL_MS = 5_000;
/** How many of those answers a directory keeps at most (about a megabyte); the least recently asked go first. */
export const MISSES_KEPT = 10_000;

export interface OwnerLookupsSettings {
  missTtlMs?: number;
  missesKept?: number;
}

/**
 * A directory's look-ups of the owner, by key, for what its table does not hold: one under way is shared
 * by whoever asks for the same meanwhile, and the owner's "no such thing" is believed for `missTtlMs`, so
 * that a flood of requests naming ids that do not exist costs the owner one look-up per id at most per
 * period, in bounded memory.
 *
 * A miss believed a few seconds hides nothing that exists. The directory reads its table before it asks
 * here, so an item an event has brought is found whatever was believed. And the ids asked about are UUIDv7
 * the owner makes as it creates: it tells anyone an id (its answer to the creator, its events) only once
 * the creation has committed, after which its look-up finds it. So a client can name an id before the
 * item exists only by guessing its random part, and an item created right after a miss has another id.
 * Names, which anyone may ask about before they are taken, are never cached here.
 */
export class OwnerLookups<T> {
  readonly #misses: LRUCache<string, true>;
  readonly #underWay = new Map<string, Promise<T | undefined>>();

  constructor({ missTtlMs = MISS_TTL_MS, missesKept = MISSES_KEPT }: OwnerLookupsSettings = {}) {
    this.#misses = new LRUCache({ max: missesKept, ttl: missTtlMs });
  }

  /** What `ask` (the owner's look-up) answers for `key`; undefined at once when the owner said so just now. */
  find(key: string, ask: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.#misses.get(key)) return Promise.resolve(undefined);
    let answer = this.#underWay.get(key);
    if (answer === undefined) {
      // An owner that could not answer is not believed to have said anything: the next caller asks again.
      answer = ask()
        .then((found) => {
          if (found === undefined) this.#misses.set(key, true);
          return found;
        })
        .finally(() => this.#underWay.delete(key));
      this.#underWay.set(key, answer);
    }
    return answer;
  }

  /** The misses believed now. */
  get misses(): number {
    return this.#misses.size;
  }
}
