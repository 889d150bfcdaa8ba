import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry.js';

/** Where one admission lane stands: a service and a class of request (read or write). */
export interface AdmissionLaneState {
  service: string;
  class: string;
  limit: number;
  inflight: number;
  waiting: number;
}

export interface AdmissionMetrics {
  refused(service: string, requestClass: string): void;
}

/** The gateway's admission control: each lane's limit and requests in flight, read on scrape, and what it refused. */
export function admissionMetrics(registry: Registry, lanes: () => Iterable<AdmissionLaneState>): AdmissionMetrics {
  const labelNames = ['service', 'class'] as const;
  const laneGauge = (name: string, help: string, read: (lane: AdmissionLaneState) => number) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const lane of lanes()) this.set({ service: lane.service, class: lane.class }, read(lane));
      },
    });
  laneGauge(
    'admission_limit',
    'The concurrency limit the gateway keeps for a service and class of request.',
    (lane) => lane.limit,
  );
  laneGauge(
    'admission_inflight',
    'Requests of a class the gateway has in flight to a service.',
    (lane) => lane.inflight,
  );
  laneGauge(
    'admission_waiting',
    'Requests of a class waiting in the gateway for a slot to a service.',
    (lane) => lane.waiting,
  );
  const refused = new Counter({
    name: `${METRIC_PREFIX}admission_refused_total`,
    help: 'Requests the gateway refused (503) for want of capacity: its waiting room full, or their wait too long.',
    labelNames,
    registers: [registry],
  });
  return { refused: (service, requestClass) => refused.inc({ service, class: requestClass }) };
}

/** Counts the API requests the gateway answered 503 before routing them, while its own event loop was behind. */
export function gatewayShedMetric(registry: Registry): () => void {
  const shed = new Counter({
    name: `${METRIC_PREFIX}gateway_shed_total`,
    help: 'API requests the gateway answered 503 before routing them, while its own event loop was behind.',
    registers: [registry],
  });
  return () => shed.inc();
}
