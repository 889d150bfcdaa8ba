import { AsyncLocalStorage } from 'node:async_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeInBatches } from '../src/write-batches.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('writeInBatches', () => {
  it('writes an item that finds nothing being written at once, alone', async () => {
    const batches: number[][] = [];
    const write = writeInBatches(async (items: readonly number[]) => {
      batches.push([...items]);
    });
    const written = write(1);
    expect(batches).toEqual([[1]]);
    await written;
  });

  it('writes every item once, one batch at a time, and fails only the items at fault', async () => {
    // Items come in waves, a tick apart; each write takes some ticks; some items make any batch holding them fail.
    const plan = fc.record({
      waves: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 8 }),
      ticksPerWrite: fc.integer({ min: 0, max: 3 }),
      maxBatch: fc.integer({ min: 1, max: 10 }),
      faulty: fc.array(fc.nat({ max: 60 }), { maxLength: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ waves, ticksPerWrite, maxBatch, faulty }) => {
        const committed: number[] = [];
        const batchSizes: number[] = [];
        let inFlight = 0;
        let overlapped = false;
        const write = writeInBatches(async (items: readonly number[]) => {
          overlapped ||= inFlight > 0;
          inFlight += 1;
          batchSizes.push(items.length);
          for (let n = 0; n < ticksPerWrite; n += 1) await tick();
          inFlight -= 1;
          if (items.some((item) => faulty.includes(item))) throw new Error(`faulty among ${items.join(',')}`);
          committed.push(...items);
        }, maxBatch);

        const outcomes: Promise<'written' | 'failed'>[] = [];
        let next = 0;
        for (const size of waves) {
          for (let n = 0; n < size; n += 1) {
            outcomes.push(
              write(next).then(
                () => 'written' as const,
                () => 'failed' as const,
              ),
            );
            next += 1;
          }
          await tick();
        }
        const settled = await Promise.all(outcomes);

        const items = Array.from({ length: next }, (_, item) => item);
        expect(settled).toEqual(items.map((item) => (faulty.includes(item) ? 'failed' : 'written')));
        expect(committed.sort((a, b) => a - b)).toEqual(items.filter((item) => !faulty.includes(item)));
        expect(overlapped).toBe(false);
        expect(Math.max(...batchSizes)).toBeLessThanOrEqual(maxBatch);
      }),
      { numRuns: 200, seed: 20261129 },
    );
  });

  it("answers each caller with its own item's result", async () => {
    const write = writeInBatches(async (items: readonly number[]) => items.map((item) => item * 10));
    expect(await Promise.all([1, 2, 3, 4].map(write))).toEqual([10, 20, 30, 40]);
  });

  it('takes the items that waited together, under load', async () => {
    const batches: number[][] = [];
    let release = () => {};
    const write = writeInBatches(async (items: readonly number[]) => {
      batches.push([...items]);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const all = [write(0), write(1), write(2), write(3)];
    await tick();
    release();
    await Promise.all(all);
    expect(batches).toEqual([[0], [1, 2, 3]]);
  });

  it("writes each batch in its first item's caller's context (its trace)", async () => {
    const caller = new AsyncLocalStorage<number>();
    const contexts: (number | undefined)[] = [];
    let release = () => {};
    const write = writeInBatches(async () => {
      contexts.push(caller.getStore());
      if (contexts.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const all = [0, 1, 2, 3].map((item) => caller.run(item, () => write(item)));
    await tick();
    release();
    await Promise.all(all);
    expect(contexts).toEqual([0, 1]);
  });
});
