// A small seeded PRNG (mulberry32), so a campaign's fault schedule can be replayed from its seed.

function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a label (FNV-1a), to derive independent streams from one seed. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Random choices from `seed`. `fork(label)` gives a stream of its own: the fault schedule and each
 * client draw from separate streams, so how many requests a client made never shifts the faults.
 */
export function random(seed) {
  const next = mulberry32(seed);
  const rng = {
    next,
    /** A float in [min, max). */
    between: (min, max) => min + (max - min) * next(),
    /** An integer in [min, max]. */
    int: (min, max) => min + Math.floor((max - min + 1) * next()),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    /** `items` in a random order (a copy). */
    shuffle(items) {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i -= 1) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy;
    },
    /** Picks a key of `weights` ({ key: weight }) in proportion to its weight. */
    weighted(weights) {
      const entries = Object.entries(weights);
      let left = next() * entries.reduce((sum, [, weight]) => sum + weight, 0);
      for (const [key, weight] of entries) {
        left -= weight;
        if (left < 0) return key;
      }
      return entries[entries.length - 1][0];
    },
    fork: (label) => random(hash(`${seed}:${label}`)),
  };
  return rng;
}

/** A fresh seed for a run that was given none (printed, so the run can be replayed). */
export function randomSeed() {
  return Math.floor(Math.random() * 2 ** 31);
}
