import { Registry } from '@recipes/metrics';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Admission } from '../src/admission/admission.js';
import { GradientLimit } from '../src/admission/gradient-limit.js';

/** A simulation's time: `now` moves when the simulation says, and timers fire as it passes them. */
function simulatedClock() {
  const timers = new Set<{ at: number; run: () => void }>();
  const clock = {
    at: 0,
    now: () => clock.at,
    after(ms: number, run: () => void) {
      const timer = { at: clock.at + ms, run };
      timers.add(timer);
      return () => void timers.delete(timer);
    },
    /** Moves time on to `to`, firing the timers due by then. */
    advance(to: number) {
      clock.at = to;
      for (const timer of [...timers]) {
        if (timer.at > to || !timers.has(timer)) continue;
        timers.delete(timer);
        timer.run();
      }
    },
  };
  return clock;
}

const QUEUE = { maxWaiting: 1_000, maxWaitMs: 5_000, intervalMs: 100, targetMs: 10 };

/**
 * The admission control against a simulated service: `cores` requests' worth of work at once, shared
 * among everything in flight (so latency grows with what waits, as in a CPU-bound service), each request
 * `workMs` of it. Requests arrive open loop, `rate` per millisecond from the first second on (a quiet
 * first second, as a service has before a crowd comes: its unloaded latency is known), plus `burst`
 * at 1 s, all at once or spread evenly over `burstSpreadMs` (as a front opening a connection for each
 * passes them on); whatever the answers. Time is the simulation's own.
 */
function simulate({
  cores,
  workMs,
  rate,
  burst = 0,
  burstSpreadMs = 0,
  durationMs,
  limit = {},
  queue = {},
}: {
  cores: number;
  workMs: number;
  rate: number;
  burst?: number;
  burstSpreadMs?: number;
  durationMs: number;
  limit?: object;
  queue?: object;
}) {
  const clock = simulatedClock();
  const admission = new Admission(
    { limit: { initial: 20, min: 4, max: 200, ...limit }, queue: { ...QUEUE, ...queue } },
    new Registry(),
    clock,
  );
  const inFlight: Array<{ left: number; arrivedAt: number; done: (outcome: { dropped: boolean }) => void }> = [];
  const latencies: Array<{ at: number; ms: number }> = [];
  const refused: Array<{ at: number; ms: number }> = [];
  let maxInFlight = 0;
  const arrive = () => {
    const arrivedAt = clock.now();
    admission.admit('comments', 'write', {
      enter: ({ done }) => inFlight.push({ left: workMs, arrivedAt, done }),
      refuse: () => refused.push({ at: clock.now(), ms: clock.now() - arrivedAt }),
    });
  };
  const step = 0.05;
  let due = 0;
  let burstArrived = 0;
  for (let now = 0; now < durationMs; now += step) {
    clock.advance(now);
    due += (now < 1_000 ? Math.min(rate, 0.1) : rate) * step;
    for (; due >= 1; due -= 1) arrive();
    const burstDue =
      now < 1_000 ? 0 : Math.min(burst, Math.ceil((burst * (now - 1_000 + step)) / (burstSpreadMs + step)));
    for (; burstArrived < burstDue; burstArrived += 1) arrive();
    const share = Math.min(1, cores / Math.max(1, inFlight.length));
    for (const request of inFlight) request.left -= step * share;
    for (let i = inFlight.length - 1; i >= 0; i -= 1) {
      const request = inFlight[i]!;
      if (request.left > 0) continue;
      inFlight.splice(i, 1);
      latencies.push({ at: now, ms: now - request.arrivedAt });
      request.done({ dropped: false });
    }
    maxInFlight = Math.max(maxInFlight, inFlight.length);
  }
  return { latencies, refused, maxInFlight };
}

const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.floor(share * (values.length - 1))]!;

describe('admission control against a simulated service', () => {
  const cores = 2;
  const workMs = 5;
  /** Requests a millisecond the service can finish. */
  const capacity = cores / workMs;

  it('refuses nothing below capacity, and admits within a few times the unloaded latency above it', () => {
    const below = simulate({ cores, workMs, rate: capacity * 0.5, durationMs: 20_000 });
    expect(below.refused).toEqual([]);

    for (const overload of [2, 4]) {
      const durationMs = 20_000;
      const run = simulate({ cores, workMs, rate: capacity * overload, durationMs });
      // After the first seconds, in which the limit finds its level.
      const settled = run.latencies.filter((latency) => latency.at > 5_000);
      const goodput = settled.length / (durationMs - 5_000);
      expect(goodput, `${overload}x: goodput per ms`).toBeGreaterThanOrEqual(0.8 * capacity);
      expect(
        percentile(
          settled.map((latency) => latency.ms),
          0.99,
        ),
        `${overload}x: p99 of admitted`,
      ).toBeLessThan(6 * workMs);
      expect(run.refused.length, `${overload}x: refused`).toBeGreaterThan(0);
      // Refused soon after arriving: once the queue is seen to stand (three intervals at most: it formed, then two
      // looks found it no shorter), within the target.
      const longestWait = (refusals: typeof run.refused) => Math.max(...refusals.map((refusal) => refusal.ms));
      expect(longestWait(run.refused), `${overload}x: longest wait refused`).toBeLessThanOrEqual(
        3 * QUEUE.intervalMs + QUEUE.targetMs,
      );
      expect(
        longestWait(run.refused.filter((refusal) => refusal.at > 5_000)),
        `${overload}x: longest wait refused, settled`,
      ).toBeLessThan(QUEUE.targetMs + 2);
      // And mostly at once: a wait foreseen too long is refused when foreseen, not once it has been waited.
      const settledRefusals = run.refused.filter((refusal) => refusal.at > 5_000);
      const refusedAfterWaiting = settledRefusals.filter((refusal) => refusal.ms >= QUEUE.targetMs / 2);
      expect(refusedAfterWaiting.length, `${overload}x: refused after half the target`).toBeLessThan(
        0.02 * settledRefusals.length,
      );
    }
  });

  it('serves a burst of any size up to the waiting room on an idle service, refusing none, whatever the limit', () => {
    fc.assert(
      // Beside other requests at up to half of what the limit lets the service serve; the burst coming in
      // over up to two intervals, as HAProxy before the gateway passed 200 requests on (bench/README.md).
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 32 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.integer({ min: 0, max: 2 * QUEUE.intervalMs }),
        (burst, limit, load, burstSpreadMs) => {
          const rate = (load * Math.min(cores, limit)) / workMs;
          const run = simulate({
            cores,
            workMs,
            rate,
            burst,
            burstSpreadMs,
            durationMs: 1_000 + burstSpreadMs + (burst * workMs) / cores + 1_500,
            limit: { initial: limit, min: limit, max: limit },
          });
          expect(run.refused).toEqual([]);
          expect(run.latencies.length).toBeGreaterThanOrEqual(burst);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('cuts a queue that stands: those let in wait about the target, not the whole queue', () => {
    const run = simulate({
      cores,
      workMs,
      rate: capacity * 3,
      durationMs: 6_000,
      limit: { initial: 4, min: 4, max: 4 },
    });
    const settled = run.latencies.filter((latency) => latency.at > 2_000).map((latency) => latency.ms);
    expect(run.refused.length).toBeGreaterThan(0);
    // Four in flight take 4 × 5 ms / 2 cores = 10 ms; those let in waited at most about the target more.
    expect(percentile(settled, 0.99)).toBeLessThan(10 + QUEUE.targetMs + 5);
  });

  it('never lets a request wait past its deadline, even when nothing drains', () => {
    const run = simulate({
      cores: 0.0001,
      workMs,
      rate: 0,
      burst: 50,
      durationMs: 8_000,
      limit: { initial: 4, min: 4, max: 4 },
      queue: { maxWaitMs: 2_000 },
    });
    expect(run.refused.length).toBe(46);
    for (const refusal of run.refused) expect(refusal.ms).toBeLessThanOrEqual(2_000 + 1);
  });

  it('without admission control, the same overload makes every answer wait longer and longer', () => {
    // The limit that never moves: what the gateway did before.
    const run = simulate({
      cores,
      workMs,
      rate: capacity * 2,
      durationMs: 2_000,
      limit: { initial: 100_000, min: 100_000, max: 100_000, unloadedConcurrency: 100_000 },
    });
    expect(run.refused).toEqual([]);
    expect(
      percentile(
        run.latencies.filter((latency) => latency.at > 1_500).map((latency) => latency.ms),
        0.5,
      ),
    ).toBeGreaterThan(50 * workMs);
  });
});

describe('GradientLimit', () => {
  it('stays within its bounds whatever latencies it sees', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            rttMs: fc.double({ min: 0.01, max: 10_000, noNaN: true }),
            inflight: fc.integer({ min: 1, max: 500 }),
            dropped: fc.boolean(),
            gapMs: fc.double({ min: 0, max: 20_000, noNaN: true }),
          }),
          { maxLength: 300 },
        ),
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

describe('a request that never reached the service (every instance refused it, restarting)', () => {
  it('gives its slot to the next at once, and leaves the limit as it was however long it waited', async () => {
    const clock = simulatedClock();
    const registry = new Registry();
    const admission = new Admission({ limit: { initial: 20, min: 4, max: 256 }, queue: QUEUE }, registry, clock);
    const admitted: Array<{ done(outcome: { dropped: boolean; reachedService?: boolean }): void }> = [];
    const admit = () =>
      admission.admit('comments', 'write', { enter: (slot) => admitted.push(slot), refuse: () => undefined });
    for (let i = 0; i < 21; i++) admit();
    expect(admitted).toHaveLength(20);
    // The first waits ten seconds for a restart outside its slot: the twenty-first takes it meanwhile.
    admitted[0]!.done({ dropped: false, reachedService: false });
    expect(admitted).toHaveLength(21);
    clock.advance(10_000);
    // Its answer, a 503 past the wait, is no news of the service's: a drop would take a tenth off.
    admitted[0]!.done({ dropped: true });
    const limit = (await registry.getSingleMetric('recipes_admission_limit')!.get()).values;
    expect(limit).toEqual([expect.objectContaining({ value: 20 })]);
  });
});
