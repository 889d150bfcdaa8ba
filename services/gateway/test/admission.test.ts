import { Registry } from '@recipes/metrics';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Admission } from '../src/admission/admission.js';
import { GradientLimit } from '../src/admission/gradient-limit.js';

/**
 * The admission control against a simulated service: `cores` requests' worth of work at once, shared
 * among everything in flight (so latency grows with what waits, as in a CPU-bound service), each request
 * `workMs` of it. Requests arrive open loop, `rate` per millisecond, whatever the answers. Time is the
 * simulation's own.
 */
function simulate({ cores, workMs, rate, durationMs, settings = {} }: { cores: number; workMs: number; rate: number; durationMs: number; settings?: object }) {
  let now = 0;
  const admission = new Admission({ initial: 20, min: 4, max: 200, ...settings }, new Registry(), () => now);
  const inFlight: Array<{ left: number; startedAt: number; done: (outcome: { dropped: boolean }) => void }> = [];
  const latencies: Array<{ at: number; ms: number }> = [];
  const refusedAt: number[] = [];
  let maxInFlight = 0;
  const step = 0.05;
  let due = 0;
  for (; now < durationMs; now += step) {
    // A quiet first second, as a service has before a crowd comes: its unloaded latency is known.
    due += (now < 1_000 ? Math.min(rate, 0.1) : rate) * step;
    for (; due >= 1; due -= 1) {
      const admitted = admission.admit('comments', 'write');
      if (admitted) inFlight.push({ left: workMs, startedAt: now, done: admitted.done });
      else refusedAt.push(now);
    }
    const share = Math.min(1, cores / Math.max(1, inFlight.length));
    for (const request of inFlight) request.left -= step * share;
    for (let i = inFlight.length - 1; i >= 0; i -= 1) {
      const request = inFlight[i]!;
      if (request.left > 0) continue;
      inFlight.splice(i, 1);
      request.done({ dropped: false });
      latencies.push({ at: now, ms: now - request.startedAt });
    }
    maxInFlight = Math.max(maxInFlight, inFlight.length);
  }
  return { latencies, refusedAt, maxInFlight };
}

const percentile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.floor(share * (values.length - 1))]!;

describe('admission control against a simulated service', () => {
  const cores = 2;
  const workMs = 5;
  /** Requests a millisecond the service can finish. */
  const capacity = cores / workMs;

  it('refuses nothing below capacity, and admits within a few times the unloaded latency above it', () => {
    const below = simulate({ cores, workMs, rate: capacity * 0.5, durationMs: 20_000 });
    expect(below.refusedAt).toEqual([]);

    for (const overload of [2, 4]) {
      const durationMs = 20_000;
      const run = simulate({ cores, workMs, rate: capacity * overload, durationMs });
      // After the first seconds, in which the limit finds its level.
      const settled = run.latencies.filter((latency) => latency.at > 5_000);
      const goodput = settled.length / (durationMs - 5_000);
      expect(goodput, `${overload}x: goodput per ms`).toBeGreaterThanOrEqual(0.8 * capacity);
      expect(percentile(settled.map((latency) => latency.ms), 0.99), `${overload}x: p99 of admitted`).toBeLessThan(6 * workMs);
      expect(run.refusedAt.length, `${overload}x: refused`).toBeGreaterThan(0);
    }
  });

  it('without admission control, the same overload makes every answer wait longer and longer', () => {
    // The limit that never moves: what the gateway did before.
    const run = simulate({ cores, workMs, rate: capacity * 2, durationMs: 2_000, settings: { initial: 100_000, min: 100_000, max: 100_000, unloadedConcurrency: 100_000 } });
    expect(run.refusedAt).toEqual([]);
    expect(percentile(run.latencies.filter((latency) => latency.at > 1_500).map((latency) => latency.ms), 0.5)).toBeGreaterThan(50 * workMs);
  });
});

describe('GradientLimit', () => {
  it('stays within its bounds whatever latencies it sees', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ rttMs: fc.double({ min: 0.01, max: 10_000, noNaN: true }), inflight: fc.integer({ min: 1, max: 500 }), dropped: fc.boolean(), gapMs: fc.double({ min: 0, max: 20_000, noNaN: true }) }), { maxLength: 300 }),
        (samples) => {
          let now = 0;
          const limit = new GradientLimit({ initial: 20, min: 4, max: 200 }, () => now);
          for (const sample of samples) {
            now += sample.gapMs;
            if (sample.dropped) limit.dropped();
            else limit.sample(sample.rttMs, sample.inflight);
            expect(limit.limit).toBeGreaterThanOrEqual(4);
            expect(limit.limit).toBeLessThanOrEqual(200);
          }
        },
      ),
    );
  });

  it('learns minRTT from unloaded requests only, keeps it while none run unloaded, and shrinks as latency rises above it', () => {
    let now = 0;
    const limit = new GradientLimit({ initial: 20, min: 4, max: 200, minRttSamples: 5 }, () => now);
    // Loaded from the start: nothing is known, and the limit holds.
    for (; now < 1_000; now += 50) limit.sample(50, 20);
    expect(limit.minRtt).toBeUndefined();
    expect(limit.limit).toBe(20);
    for (let i = 0; i < 5; i += 1) limit.sample(10, 1);
    expect(limit.minRtt).toBe(10);
    // Loaded again, and slower than minRTT and its buffer: the limit shrinks, to the floor at most.
    for (; now < 3_000; now += 100) limit.sample(200, limit.limit);
    expect(limit.minRtt).toBe(10);
    expect(limit.limit).toBe(4);
    // As fast as unloaded, with the limit in use: it grows again.
    for (; now < 5_000; now += 100) limit.sample(12, limit.limit);
    expect(limit.limit).toBeGreaterThan(20);
  });

  it('takes a tenth off the limit when the service drops a request', () => {
    const limit = new GradientLimit({ initial: 100, min: 4, max: 200 }, () => 0);
    limit.dropped();
    expect(limit.limit).toBe(90);
  });
});
