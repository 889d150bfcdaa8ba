import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OwnerLookups } from '../src/owner-lookups.js';

/** An owner that knows the keys in `known`, counting what it is asked. */
function owner(known: string[] = []) {
  const asked: string[] = [];
  return {
    asked,
    ask: (key: string) => async () => {
      asked.push(key);
      await new Promise((resolve) => setImmediate(resolve));
      return known.includes(key) ? { key } : undefined;
    },
  };
}

describe('OwnerLookups', () => {
  it('asks once about a key the owner said does not exist, however many ask, one after another or at once', async () => {
    const lookups = new OwnerLookups<{ key: string }>();
    const { asked, ask } = owner();
    await Promise.all(Array.from({ length: 20 }, () => lookups.find('ghost', ask('ghost'))));
    for (let n = 0; n < 20; n += 1) expect(await lookups.find('ghost', ask('ghost'))).toBeUndefined();
    expect(asked).toEqual(['ghost']);
  });

  it('asks again about what exists, and once the miss is old', async () => {
    const lookups = new OwnerLookups<{ key: string }>({ missTtlMs: 30 });
    const { asked, ask } = owner(['real']);
    expect(await lookups.find('real', ask('real'))).toEqual({ key: 'real' });
    expect(await lookups.find('real', ask('real'))).toEqual({ key: 'real' });
    await lookups.find('ghost', ask('ghost'));
    const started = Date.now();
    while (asked.length < 4) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await lookups.find('ghost', ask('ghost'));
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(asked).toEqual(['real', 'real', 'ghost', 'ghost']);
  });

  it('believes nothing of an owner that could not answer', async () => {
    const lookups = new OwnerLookups<{ key: string }>();
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('unavailable');
    };
    await expect(lookups.find('ghost', failing)).rejects.toThrow('unavailable');
    await expect(lookups.find('ghost', failing)).rejects.toThrow('unavailable');
    expect(calls).toBe(2);
    expect(lookups.misses).toBe(0);
  });

  it('keeps at most missesKept misses, the least recently asked going first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        async (kept, keys) => {
          const lookups = new OwnerLookups<{ key: string }>({ missesKept: kept });
          const { asked, ask } = owner();
          for (const key of keys) {
            const before = asked.length;
            await lookups.find(String(key), ask(String(key)));
            expect(lookups.misses).toBeLessThanOrEqual(kept);
            // The same key just asked about is never asked again.
            await lookups.find(String(key), ask(String(key)));
            expect(asked.length).toBeLessThanOrEqual(before + 1);
          }
        },
      ),
    );
    const lookups = new OwnerLookups<{ key: string }>({ missesKept: 2 });
    const { asked, ask } = owner();
    for (const key of ['a', 'b', 'a', 'c', 'a', 'b']) await lookups.find(key, ask(key));
    // c pushed out b (a was asked more recently); b pushed out c.
    expect(asked).toEqual(['a', 'b', 'c', 'b']);
  });
});
