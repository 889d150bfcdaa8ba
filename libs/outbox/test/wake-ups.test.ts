import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@recipes/logging';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runBatchLoop } from '../src/relay.js';
import { WakeUps } from '../src/wake-ups.js';

describe('WakeUps', () => {
  it('keeps a loop without a poll asleep until a notification, however long, and a polling one only until its poll', async () => {
    const wakeUps = new WakeUps(() => true);
    const ended: string[] = [];
    const untimed = wakeUps.sleep().then(() => ended.push('untimed'));
    const polling = wakeUps.sleep(20).then(() => ended.push('polling'));
    await polling;
    // The poll has come and gone: the untimed sleeper, with no timer of its own, is still asleep.
    await sleep(30);
    expect(ended).toEqual(['polling']);
    wakeUps.notify();
    await untimed;
    expect(ended).toEqual(['polling', 'untimed']);
  });

  it('ends an untimed sleep as the relay stops', async () => {
    let running = true;
    const wakeUps = new WakeUps(() => running);
    const asleep = wakeUps.sleep();
    running = false;
    wakeUps.wakeAll();
    await expect(asleep).resolves.toBeUndefined();
  });
});

/**
 * The outbox table as the relay's batches see it, one READ COMMITTED transaction a batch: a claim sees the
 * rows committed before its statement began, takes those whose available_at (their writer's now(), as its
 * transaction began) is at most its own transaction's now(), and locks them: no other claim takes them.
 */
class OutboxModel {
  #clock = 0;
  readonly #rows = new Set<{ availableAt: number; committed: boolean }>();

  /** now() of a transaction that begins at this step. */
  now(): number {
    return (this.#clock += 1);
  }

  /** Rows written by a transaction that began at `availableAt`; visible once `commit` is called. */
  write(count: number, availableAt: number): () => void {
    const rows = Array.from({ length: count }, () => ({ availableAt, committed: false }));
    for (const row of rows) this.#rows.add(row);
    return () => rows.forEach((row) => (row.committed = true));
  }

  /** A batch's claim, in a transaction that began at `now`: how many rows it took. */
  claim(now: number, batchSize: number): number {
    const claimable = [...this.#rows].filter((row) => row.committed && row.availableAt <= now).slice(0, batchSize);
    for (const row of claimable) this.#rows.delete(row);
    return claimable.length;
  }

  get unclaimed(): number {
    return [...this.#rows].filter((row) => row.committed).length;
  }
}

describe('WakeUps and the relay’s batch loops, as a model', () => {
  const logger = createLogger({ service: 'outbox-test', level: 'silent' });
  /** The polling loop's interval: longer than the test, so a row found only by a poll is left over. */
  const NO_POLL_MS = 3_600_000;

  it('claims every row committed before a notification without a poll, however loops, writes and notifications interleave', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
        async (s, loops, batchSize, writes) => {
          const table = new OutboxModel();
          let running = true;
          const wakeUps = new WakeUps(() => running);
          const step = (label: string) => s.schedule(Promise.resolve(), label);

          // As relayBatch: BEGIN (after waiting for a connection), the claim, then the publishing and the commit.
          const batch = (loop: number) => async () => {
            await step(`loop ${loop}: BEGIN`);
            const now = table.now();
            await step(`loop ${loop}: claim`);
            const claimed = table.claim(now, batchSize);
            await step(`loop ${loop}: published ${claimed}`);
            return claimed;
          };
          const relay = Promise.all(
            Array.from({ length: loops }, (_, loop) =>
              runBatchLoop({
                wakeUps,
                isRunning: () => running,
                batch: batch(loop),
                batchSize,
                pollIntervalMs: loop === 0 ? NO_POLL_MS : undefined,
                logger,
              }),
            ),
          );
          // Each write: its transaction begins, commits, and then the relay hears of it (NOTIFY, or the pool's
          // release).
          const writers = writes.map(async (count, index) => {
            await step(`write ${index}: BEGIN`);
            const commit = table.write(count, table.now());
            await step(`write ${index}: COMMIT`);
            commit();
            await step(`write ${index}: notify`);
            wakeUps.notify();
          });

          // Every write committed and announced, then whatever the relay does without its poll.
          await s.waitFor(Promise.all(writers));
          await s.waitIdle();
          try {
            expect(table.unclaimed).toBe(0);
          } finally {
            running = false;
            wakeUps.wakeAll();
            await s.waitFor(relay);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
