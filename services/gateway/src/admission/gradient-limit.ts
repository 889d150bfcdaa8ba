/**
 * A concurrency limit that follows measured latency, after Envoy's adaptive concurrency filter (its
 * gradient controller) and Netflix's concurrency-limits. It knows the service's unloaded latency (minRTT)
 * from the requests that ran with at most `unloadedConcurrency` in flight; each window's latency
 * (its 90th percentile) is compared with minRTT. While requests take no longer than minRTT and a buffer,
 * the limit grows (a gradient above 1, plus a queue allowance of √limit); as they take longer (requests
 * queueing in the service), it shrinks in proportion, to half of itself per window at most. So what is
 * admitted is served about as fast as when nothing waits, however much more is offered.
 *
 * Under a load that never lets concurrency fall that low, minRTT would go stale (or never be known, under
 * a load from the start): after `minRttIntervalMs` without an unloaded request (ten sample windows while
 * it is unknown), the limit drops to `unloadedConcurrency` until `minRttSamples` requests admitted at
 * that concurrency have measured it again (a few dozen milliseconds). The limit itself never falls
 * below `min`, so that an ordinary burst is never refused.
 */
export interface GradientLimitSettings {
  initial: number;
  min: number;
  max: number;
  /** At most this many in flight, a request ran unloaded: its latency is minRTT's. */
  unloadedConcurrency?: number;
  /** How far above minRTT a window's latency may go before the limit shrinks (0.5 = 50 %). */
  buffer?: number;
  /** How often the limit is worked out again from the samples since the last time. */
  sampleWindowMs?: number;
  /** How long minRTT holds without an unloaded request, and how many of those measure it. */
  minRttIntervalMs?: number;
  minRttSamples?: number;
}

const percentile = (samples: number[], share: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
};

export class GradientLimit {
  #limit: number;
  private readonly settings: Required<GradientLimitSettings>;
  /** The latest unloaded latencies, minRTT being their median. */
  private unloaded: number[] = [];
  /** Since when no request has run unloaded (the last one before a pause always does). */
  private loadedSince: number | undefined;
  /** While minRTT is measured again, only requests admitted since (this epoch) count. */
  private measuring = false;
  private epoch = 0;
  private window: number[] = [];
  private windowStartedAt: number;

  constructor(
    settings: GradientLimitSettings,
    private readonly now: () => number,
  ) {
    this.settings = { unloadedConcurrency: 2, buffer: 0.5, sampleWindowMs: 100, minRttIntervalMs: 10_000, minRttSamples: 20, ...settings };
    this.#limit = settings.initial;
    this.windowStartedAt = now();
  }

  /** How many requests may be in flight at once now. */
  get limit(): number {
    return this.measuring ? this.settings.unloadedConcurrency : Math.floor(this.#limit);
  }

  /** The unloaded latency, once known. */
  get minRtt(): number | undefined {
    return this.unloaded.length === 0 ? undefined : percentile(this.unloaded, 0.5);
  }

  /** A request admitted now: the epoch it is measured under, for `sample`. */
  admitted(): number {
    return this.epoch;
  }

  /** A request admitted under `epoch` took `rttMs` while `inflight` requests (itself included) were under way. */
  sample(rttMs: number, inflight: number, epoch: number): void {
    const now = this.now();
    if (inflight > this.settings.unloadedConcurrency) this.loadedSince ??= now;
    else if (!this.measuring || epoch === this.epoch) this.unloadedSample(rttMs, now);
    if (this.measuring) return;
    this.window.push(rttMs);
    if (now - this.windowStartedAt < this.settings.sampleWindowMs) return;
    const windowRtt = percentile(this.window, 0.9);
    this.window = [];
    this.windowStartedAt = now;
    const minRtt = this.minRtt;
    // Unknown (a service loaded from its start) is measured soon; known, it holds for the interval.
    const staleAfterMs = minRtt === undefined ? 10 * this.settings.sampleWindowMs : this.settings.minRttIntervalMs;
    if (this.loadedSince !== undefined && now - this.loadedSince > staleAfterMs) return this.measureAgain();
    // Not known yet, or not using what it has: nothing tells whether more would be served as fast.
    if (minRtt === undefined || inflight < this.#limit / 2) return;
    const gradient = Math.max(0.5, Math.min(2, (minRtt * (1 + this.settings.buffer)) / windowRtt));
    this.set(this.#limit * gradient + Math.sqrt(this.#limit));
  }

  /** A request the upstream dropped: too late, or refused for want of capacity. */
  dropped(): void {
    this.set(this.#limit * 0.9);
  }

  private unloadedSample(rttMs: number, now: number): void {
    this.unloaded.push(rttMs);
    if (this.unloaded.length > this.settings.minRttSamples) this.unloaded.shift();
    this.loadedSince = undefined;
    if (this.measuring && this.unloaded.length >= this.settings.minRttSamples) {
      this.measuring = false;
      this.epoch += 1;
      this.window = [];
      this.windowStartedAt = now;
    }
  }

  private measureAgain(): void {
    this.measuring = true;
    this.epoch += 1;
    this.unloaded = [];
  }

  private set(estimate: number): void {
    this.#limit = Math.min(this.settings.max, Math.max(this.settings.min, estimate));
  }
}
