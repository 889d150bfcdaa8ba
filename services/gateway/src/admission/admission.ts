import { admissionMetrics, type AdmissionMetrics, type Registry } from '@recipes/metrics';
import { GradientLimit, type GradientLimitSettings } from './gradient-limit.js';

/** Reads and writes of one service are limited apart: a flood of one never starves the other. */
export type RequestClass = 'read' | 'write';

export const requestClassOf = (method: string): RequestClass => (method === 'GET' || method === 'HEAD' ? 'read' : 'write');

/** A request admitted: `done` once its answer has gone, with whether the service dropped it. */
export interface Admitted {
  done(outcome: { dropped: boolean }): void;
}

interface Lane {
  service: string;
  class: RequestClass;
  limit: GradientLimit;
  inflight: number;
}

/**
 * Admission control in front of each service (docs/architecture.md, "Overload"): at most `limit`
 * requests of a class in flight to a service, the limit following the latency measured (gradient-limit.ts);
 * the excess is refused at once, before anything is sent, so that what is admitted is served about as
 * fast as when nothing waits.
 */
export class Admission {
  private readonly lanes = new Map<string, Lane>();
  private readonly metrics: AdmissionMetrics;

  constructor(
    private readonly settings: GradientLimitSettings,
    registry: Registry,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.metrics = admissionMetrics(registry, () =>
      [...this.lanes.values()].map((lane) => ({ service: lane.service, class: lane.class, limit: lane.limit.limit, inflight: lane.inflight })),
    );
  }

  /** Admits a request to `service`, or refuses it (undefined) when the limit is reached. */
  admit(service: string, requestClass: RequestClass): Admitted | undefined {
    const lane = this.laneOf(service, requestClass);
    if (lane.inflight >= lane.limit.limit) {
      this.metrics.refused(service, requestClass);
      return undefined;
    }
    lane.inflight += 1;
    const startedAt = this.now();
    let finished = false;
    return {
      done: ({ dropped }) => {
        if (finished) return;
        finished = true;
        if (dropped) lane.limit.dropped();
        else lane.limit.sample(this.now() - startedAt, lane.inflight);
        lane.inflight -= 1;
      },
    };
  }

  private laneOf(service: string, requestClass: RequestClass): Lane {
    const key = `${service} ${requestClass}`;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { service, class: requestClass, limit: new GradientLimit(this.settings, this.now), inflight: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }
}
