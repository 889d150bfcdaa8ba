import { describe, expect, it } from 'vitest';
import { failureCounter } from '../src/failure-counter.js';

/** A counter on a clock the test moves. */
function counterAt(options: { limit: number; windowMs?: number; maxKeys?: number }) {
  const clock = { time: 1_000 };
  const counter = failureCounter({ windowMs: 60_000, maxKeys: 100, ...options, now: () => clock.time });
  return { counter, clock };
}

describe('failureCounter', () => {
  it('refuses a key at its limit until the window that began with its first failure ends', () => {
    const { counter, clock } = counterAt({ limit: 3 });
    counter.add('a');
    clock.time += 10_000;
    counter.add('a');
    expect(counter.retryAfterMs('a')).toBe(0);
    counter.add('a');
    expect(counter.retryAfterMs('a')).toBe(50_000);
    expect(counter.retryAfterMs('b')).toBe(0);
    clock.time += 49_999;
    expect(counter.retryAfterMs('a')).toBe(1);
    clock.time += 1;
    expect(counter.retryAfterMs('a')).toBe(0);
  });

  it('starts a key afresh once its window has ended', () => {
    const { counter, clock } = counterAt({ limit: 2 });
    counter.add('a');
    clock.time += 60_000;
    counter.add('a');
    expect(counter.retryAfterMs('a')).toBe(0);
    counter.add('a');
    expect(counter.retryAfterMs('a')).toBe(60_000);
  });

  it('forgets a cleared key', () => {
    const { counter } = counterAt({ limit: 1 });
    counter.add('a');
    counter.clear('a');
    expect(counter.retryAfterMs('a')).toBe(0);
    expect(counter.size).toBe(0);
  });

  it('takes back a forgiven failure once, and never one of a later window', () => {
    const { counter, clock } = counterAt({ limit: 2 });
    const first = counter.add('a');
    counter.add('a');
    first.forgive();
    first.forgive();
    expect(counter.retryAfterMs('a')).toBe(0);
    counter.add('a');
    expect(counter.retryAfterMs('a')).toBeGreaterThan(0);

    const late = counter.add('b');
    clock.time += 60_000;
    counter.add('b');
    counter.add('b');
    late.forgive();
    expect(counter.retryAfterMs('b')).toBe(60_000);
  });

  it('drops ended windows as it goes, so quiet keys take no memory', () => {
    const { counter, clock } = counterAt({ limit: 5 });
    for (let i = 0; i < 50; i++) counter.add(`key ${i}`);
    clock.time += 60_000;
    counter.add('new');
    expect(counter.size).toBe(1);
  });

  it('holds at most maxKeys, forgetting the oldest first', () => {
    const { counter, clock } = counterAt({ limit: 1, maxKeys: 3 });
    for (const key of ['a', 'b', 'c', 'd']) {
      counter.add(key);
      clock.time += 1;
    }
    expect(counter.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((key) => counter.retryAfterMs(key) > 0)).toEqual([false, true, true, true]);
  });
});
