import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/fingerprint.js';

/**
 * The recursive definition canonicalJson had before it kept a stack of its own. Fingerprints kept for 24
 * hours were made by it: a retry after a deploy must still match them.
 */
function recursiveCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(recursiveCanonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${recursiveCanonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

/** The same value with every object's keys in another order. */
function shuffled(value: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffled(item, order));
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(order(Object.keys(record)).map((key) => [key, shuffled(record[key], order)]));
  }
  return value;
}

const anyBody = fc.jsonValue({ maxDepth: 6 });

describe('canonicalJson', () => {
  it('writes any JSON value exactly as the recursive definition did', () => {
    fc.assert(
      fc.property(anyBody, (value) => {
        expect(canonicalJson(value)).toBe(recursiveCanonicalJson(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a value the same whatever the order of its keys, and as JSON that reads back as the value', () => {
    const order = fc
      .func(fc.integer())
      .map((rank) => (keys: string[]) => [...keys].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1)));
    fc.assert(
      fc.property(anyBody, order, (value, reorder) => {
        const canonical = canonicalJson(value);
        expect(canonicalJson(shuffled(value, reorder))).toBe(canonical);
        expect(canonical).toBe(canonicalJson(JSON.parse(JSON.stringify(value, null, 2))));
        expect(JSON.parse(canonical)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes values nested far deeper than the call stack goes, arrays and objects', () => {
    fc.assert(
      fc.property(fc.integer({ min: 50_000, max: 100_000 }), fc.boolean(), (levels, objects) => {
        const text = objects
          ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
          : `${'['.repeat(levels)}${']'.repeat(levels)}`;
        expect(() => recursiveCanonicalJson(JSON.parse(text))).toThrow(RangeError);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 4 },
    );
  });
});
