/**
 * A concurrency limit that follows measured latency, after Envoy's adaptive concurrency filter (its
 * gradient controller) and Netflix's concurrency-limits. It knows the service's unloaded latency (minRTT):
 * the median of the latest requests that ran with at most `unloadedConcurrency` in flight. Each window,
 * the window's latency (its 90th percentile) is compared with minRTT: while requests take no longer than
 * minRTT and a buffer, the limit grows (a gradient above 1, plus a queue allowance of √limit); as they
 * take longer (requests queueing in the service), it shrinks in proportion, to half of itself per window
 * at most. So what is admitted is served about as fast as when nothing waits, however much more is offered.
 *
 * Envoy also measures minRTT actively, letting only a few requests through for a moment every so often;
 * that refuses requests a service could have served, so here minRTT is only ever learnt from requests
 * that happened to run unloaded, and kept while none do (a service busy since its start keeps its initial
 * limit until one has). The limit never falls below `min`; what is beyond it waits (waiting-room.ts).
 */
export interface GradientLimitSettings {
  initial: number;
  min: number;
  max: number;
  /** At most this many in flight (itself included), a request ran unloaded: its latency is minRTT's. */
  unloadedConcurrency?: number;
  /** How far above minRTT a window's latency may go before the limit shrinks (0.5 = 50 %). */
  buffer?: number;
  /** How often the limit is worked out again from the samples since the last time. */
  sampleWindowMs?: number;
  /** How many of the latest unloaded requests minRTT is the median of. */
  minRttSamples?: number;
}

const percentile = (samples: number[], share: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
};

export class GradientLimit {
  #limit: number;
  private readonly settings: Required<GradientLimitSettings>;
  private unloaded: number[] = [];
  private window: number[] = [];
  private windowStartedAt: number;

  constructor(
    settings: GradientLimitSettings,
    private readonly now: () => number,
  ) {
    this.settings = { unloadedConcurrency: 2, buffer: 0.5, sampleWindowMs: 100, minRttSamples: 20, ...settings };
    this.#limit = settings.initial;
    this.windowStartedAt = now();
  }

  /** How many requests may be in flight at once now. */
  get limit(): number {
    return Math.floor(this.#limit);
  }

  /** The unloaded latency, once a request has run unloaded. */
  get minRtt(): number | undefined {
    return this.unloaded.length === 0 ? undefined : percentile(this.unloaded, 0.5);
  }

  /** A request took `rttMs` while `inflight` requests (itself included) were under way. */
  sample(rttMs: number, inflight: number): void {
    if (inflight <= this.settings.unloadedConcurrency) {
      this.unloaded.push(rttMs);
      if (this.unloaded.length > this.settings.minRttSamples) this.unloaded.shift();
    }
    this.window.push(rttMs);
    const now = this.now();
    if (now - this.windowStartedAt < this.settings.sampleWindowMs) return;
    const windowRtt = percentile(this.window, 0.9);
    this.window = [];
    this.windowStartedAt = now;
    const minRtt = this.minRtt;
    // Not known yet, or not using what it has: nothing tells whether more would be served as fast.
    if (minRtt === undefined || inflight < this.#limit / 2) return;
    const gradient = Math.max(0.5, Math.min(2, (minRtt * (1 + this.settings.buffer)) / windowRtt));
    this.set(this.#limit * gradient + Math.sqrt(this.#limit));
  }

  /** A request the upstream dropped: too late, or refused for want of capacity. */
  dropped(): void {
    this.set(this.#limit * 0.9);
  }

  private set(estimate: number): void {
    this.#limit = Math.min(this.settings.max, Math.max(this.settings.min, estimate));
  }
}
