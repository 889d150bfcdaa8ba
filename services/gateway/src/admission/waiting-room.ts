import type { Clock } from './clock.js';

/**
 * Where requests wait for a slot in a lane (docs/architecture.md §10), first come first served. A burst is
 * not overload: requests that arrive together wait here and are all let in as the service drains them.
 * What is cut is a standing queue, after CoDel (Nichols and Jacobson, 2012) and Facebook's "Fail at Scale"
 * (2015): a queue that has not emptied and did not get shorter over each of the last two intervals is being
 * fed faster than it drains. While it stands, a request that would wait past `targetMs` (by the rate the
 * queue has been draining at) is refused as it arrives, and one already waiting as soon as its wait is
 * foreseen past twice the target (the backlog found when the queue turns standing, or a drain that
 * slowed), at the latest once it has waited that long: those let in wait about the target, and a refusal
 * costs its client little wait. It stops standing once it has emptied with nothing refused for an
 * interval. Whatever the queue's state, no request waits past `maxWaitMs`.
 */
export interface WaitingRoomSettings {
  /** Requests waiting at most; one more is refused at once. */
  maxWaiting: number;
  /** The longest a request waits for a slot: its deadline. */
  maxWaitMs: number;
  /** How long a queue must fail to drain before it counts as standing (CoDel's interval). */
  intervalMs: number;
  /** In a standing queue, the longest a request may expect to wait (CoDel's target). */
  targetMs: number;
}

/**
 * How many looks in a row must find the queue no shorter before it stands: a burst that a front passes on
 * over a connection each, or that arrives with other load, may take more than an interval to come in whole,
 * and its queue grows until it has (one look refused 96 of 200 comments at once through HAProxy).
 */
const UNDRAINED_LOOKS = 2;
/** How many of the latest departures the drain rate is measured over. */
const DRAIN_SAMPLES = 32;
/**
 * In a standing queue, a waiter is refused once its wait passes this many times the target, or is foreseen
 * to: headroom over what an arrival may expect, so that the drain rate's jitter does not refuse those let in.
 */
const LATE_FACTOR = 2;

export interface Waiter {
  /** Called once the request may go on to the service. */
  enter(): void;
  /** Called once the request is refused. */
  refuse(): void;
}

interface Entry {
  waiter: Waiter;
  arrivedAt: number;
}

export class WaitingRoom {
  /** Oldest first. */
  private entries: Entry[] = [];
  /** The queue's length at the last check of whether it drains, and when that was. */
  private checkpoint: { at: number; length: number };
  /** How many looks in a row have found the queue no shorter than the one before. */
  private undrainedLooks = 0;
  private lastRefusedAt = Number.NEGATIVE_INFINITY;
  /** When the latest departures left, oldest first: how fast the queue drains. */
  private departures: number[] = [];
  #standing = false;
  private timer: { dueAt: number; cancel: () => void } | undefined;

  constructor(
    private readonly settings: WaitingRoomSettings,
    private readonly clock: Clock,
    /** Told of each refusal, for the metrics. */
    private readonly onRefused: () => void,
  ) {
    this.checkpoint = { at: clock.now(), length: 0 };
  }

  get length(): number {
    return this.entries.length;
  }

  /** Whether the queue stands: fed faster than it drains, so that its longest waits are cut. */
  get standing(): boolean {
    return this.#standing;
  }

  /**
   * Queues `waiter`, or refuses it at once: the room is full, or the queue stands and it would wait past
   * the target. Returns how to withdraw it (its client went).
   */
  add(waiter: Waiter): () => void {
    const now = this.clock.now();
    this.cutExpired(now);
    this.assess(now);
    this.cutForeseenLate(now);
    if (
      this.entries.length >= this.settings.maxWaiting ||
      (this.#standing && (this.entries.length + 1) * this.drainIntervalMs() > this.settings.targetMs)
    ) {
      this.refuse(waiter, now);
      return () => undefined;
    }
    const entry = { waiter, arrivedAt: now };
    if (this.entries.length === 0) {
      this.checkpoint = { at: now, length: 0 };
      this.undrainedLooks = 0;
    }
    this.entries.push(entry);
    this.schedule();
    return () => this.withdraw(entry);
  }

  /** A slot is free: lets in the request that goes next, if any waits. Returns whether one did. */
  next(): boolean {
    const now = this.clock.now();
    this.cutExpired(now);
    this.assess(now);
    this.cutForeseenLate(now);
    const entry = this.entries.shift();
    if (!entry) return false;
    this.departures.push(now);
    if (this.departures.length > DRAIN_SAMPLES) this.departures.shift();
    this.afterRemoval();
    entry.waiter.enter();
    return true;
  }

  /** Refuses everything waiting: the gateway is closing. */
  close(): void {
    this.stopTimer();
    const now = this.clock.now();
    for (const { waiter } of this.entries.splice(0)) this.refuse(waiter, now);
  }

  /**
   * How long apart requests leave the queue, by the latest departures: a request waits this for each one
   * ahead of it and itself. Unknown (0) until a few have left.
   */
  private drainIntervalMs(): number {
    const first = this.departures[0];
    const last = this.departures.at(-1);
    if (first === undefined || last === undefined || last <= first) return 0;
    return (last - first) / (this.departures.length - 1);
  }

  /** How long a waiter may wait, as things stand: in a standing queue, twice what an arrival may expect. */
  private waitLimit(): number {
    return this.#standing ? LATE_FACTOR * this.settings.targetMs : this.settings.maxWaitMs;
  }

  /**
   * Whether the queue drains, looked at once an interval: standing when it has not emptied since it formed
   * and `UNDRAINED_LOOKS` looks in a row found it no shorter than an interval before. A burst's queue gets
   * shorter once the burst has arrived.
   */
  private assess(now: number): void {
    if (this.entries.length === 0) {
      if (this.#standing && now - this.lastRefusedAt >= this.settings.intervalMs) this.#standing = false;
      return;
    }
    if (now - this.checkpoint.at < this.settings.intervalMs) return;
    const drained = this.checkpoint.length === 0 || this.entries.length < this.checkpoint.length;
    this.undrainedLooks = drained ? 0 : this.undrainedLooks + 1;
    if (this.undrainedLooks >= UNDRAINED_LOOKS) this.#standing = true;
    this.checkpoint = { at: now, length: this.entries.length };
  }

  /** Refuses, oldest first, whoever has waited past the limit that applies now. */
  private cutExpired(now: number): void {
    let cut = 0;
    while (cut < this.entries.length && now - this.entries[cut]!.arrivedAt >= this.waitLimit()) cut += 1;
    if (cut === 0) return;
    for (const { waiter } of this.entries.splice(0, cut)) this.refuse(waiter, now);
    this.afterRemoval();
  }

  /**
   * In a standing queue, refuses now, front to back, each waiter whose wait so far and still to come at the
   * drain rate would pass its limit: a refusal after a long wait is the one that costs its client most, so it
   * is made as soon as the miss is foreseen. Each one refused moves those behind it up.
   */
  private cutForeseenLate(now: number): void {
    const interval = this.drainIntervalMs();
    if (!this.#standing || interval === 0) return;
    const kept: Entry[] = [];
    const late: Entry[] = [];
    for (const entry of this.entries) {
      const fits = now - entry.arrivedAt + (kept.length + 1) * interval <= this.waitLimit();
      (fits ? kept : late).push(entry);
    }
    if (late.length === 0) return;
    this.entries = kept;
    for (const { waiter } of late) this.refuse(waiter, now);
    this.afterRemoval();
  }

  private withdraw(entry: Entry): void {
    const index = this.entries.indexOf(entry);
    if (index === -1) return;
    this.entries.splice(index, 1);
    this.afterRemoval();
  }

  private afterRemoval(): void {
    if (this.entries.length === 0) {
      // The drain rate is measured within a busy spell: a pause between two would read as a slow drain.
      this.departures = [];
      this.stopTimer();
    } else this.schedule();
  }

  private refuse(waiter: Waiter, now: number): void {
    this.lastRefusedAt = now;
    this.onRefused();
    waiter.refuse();
  }

  /**
   * A timer for the oldest waiter's limit, so that it is refused on time even when no slot frees up. One
   * already due sooner is kept: moved on at every arrival, it would never fire under a steady stream.
   */
  private schedule(): void {
    const oldest = this.entries[0];
    if (!oldest) return;
    const dueAt = oldest.arrivedAt + this.waitLimit();
    if (this.timer && this.timer.dueAt <= dueAt) return;
    this.stopTimer();
    const cancel = this.clock.after(Math.max(1, dueAt - this.clock.now()), () => {
      this.timer = undefined;
      const now = this.clock.now();
      this.assess(now);
      this.cutExpired(now);
      this.schedule();
    });
    this.timer = { dueAt, cancel };
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }
}
