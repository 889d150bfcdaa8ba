import { admissionMetrics, type AdmissionMetrics, type Registry } from '@recipes/metrics';
import { GradientLimit, type GradientLimitSettings } from './gradient-limit.js';
import { type Clock, systemClock } from './clock.js';
import { WaitingRoom, type WaitingRoomSettings } from './waiting-room.js';

/** Reads and writes of one service are limited apart: a flood of one never starves the other. */
export type RequestClass = 'read' | 'write';

export const requestClassOf = (method: string): RequestClass =>
  method === 'GET' || method === 'HEAD' ? 'read' : 'write';

/**
 * A request admitted: `done` once its answer has gone, with whether the service dropped it, or once it is known
 * never to reach the service in its slot (every instance refused it, restarting): it waits for them outside the
 * lane, and its wait teaches the limit nothing about the service's latency.
 */
export interface Admitted {
  done(outcome: { dropped: boolean; reachedService?: boolean }): void;
}

/** What becomes of a request: it goes on to the service, or it is refused. Exactly one is called, once. */
export interface Admittance {
  enter(admitted: Admitted): void;
  refuse(): void;
}

export interface AdmissionSettings {
  limit: GradientLimitSettings;
  queue: WaitingRoomSettings;
}

class Lane {
  readonly limit: GradientLimit;
  readonly waiting: WaitingRoom;
  inflight = 0;

  constructor(
    readonly service: string,
    readonly requestClass: RequestClass,
    settings: AdmissionSettings,
    private readonly clock: Clock,
    onRefused: () => void,
  ) {
    this.limit = new GradientLimit(settings.limit, clock.now);
    this.waiting = new WaitingRoom(settings.queue, clock, onRefused);
  }

  /** Takes a slot for `admittance` now. */
  enter(admittance: Admittance): void {
    this.inflight += 1;
    const startedAt = this.clock.now();
    let finished = false;
    admittance.enter({
      done: ({ dropped, reachedService = true }) => {
        if (finished) return;
        finished = true;
        if (dropped) this.limit.dropped();
        // Timed from the slot, not from arrival: a burst's wait in the queue is not the service's latency.
        else if (reachedService) this.limit.sample(this.clock.now() - startedAt, this.inflight);
        this.inflight -= 1;
        while (this.inflight < this.limit.limit && this.waiting.next());
      },
    });
  }
}

/**
 * Admission control in front of each service (docs/architecture.md, "Overload"): at most `limit`
 * requests of a class in flight to a service, the limit following the latency measured (gradient-limit.ts).
 * Beyond it requests wait their turn in the lane's waiting room (waiting-room.ts), which absorbs a burst
 * and cuts a queue that stands; a refusal is answered at once, before anything is sent to the service.
 */
export class Admission {
  private readonly lanes = new Map<string, Lane>();
  private readonly metrics: AdmissionMetrics;

  constructor(
    private readonly settings: AdmissionSettings,
    registry: Registry,
    private readonly clock: Clock = systemClock,
  ) {
    this.metrics = admissionMetrics(registry, () =>
      [...this.lanes.values()].map((lane) => ({
        service: lane.service,
        class: lane.requestClass,
        limit: lane.limit.limit,
        inflight: lane.inflight,
        waiting: lane.waiting.length,
      })),
    );
  }

  /**
   * Lets a request to `service` in at once when its lane has a slot, else queues it. Returns how to
   * withdraw it while it waits (its client has gone).
   */
  admit(service: string, requestClass: RequestClass, admittance: Admittance): () => void {
    const lane = this.laneOf(service, requestClass);
    if (lane.inflight < lane.limit.limit && lane.waiting.length === 0) {
      lane.enter(admittance);
      return () => undefined;
    }
    return lane.waiting.add({ enter: () => lane.enter(admittance), refuse: () => admittance.refuse() });
  }

  /** Refuses every request still waiting: the gateway is closing. */
  close(): void {
    for (const lane of this.lanes.values()) lane.waiting.close();
  }

  private laneOf(service: string, requestClass: RequestClass): Lane {
    const key = `${service} ${requestClass}`;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = new Lane(service, requestClass, this.settings, this.clock, () =>
        this.metrics.refused(service, requestClass),
      );
      this.lanes.set(key, lane);
    }
    return lane;
  }
}
