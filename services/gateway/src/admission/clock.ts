/** Time, and timers on it: the system's, or a simulation's. */
export interface Clock {
  now(): number;
  /** Calls `run` in `ms`; returns how to cancel it. */
  after(ms: number, run: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
