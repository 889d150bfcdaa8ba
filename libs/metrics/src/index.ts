export { admissionMetrics, type AdmissionLaneState, type AdmissionMetrics } from './admission.js';
export { type EventMetrics, eventMetrics } from './events.js';
export {
  boundedRead,
  deadLetterQueueMetrics,
  DEFAULT_READ_TIMEOUT_MS,
  openStreamsMetric,
  type OutboxBacklog,
  outboxMetrics,
  type PoolCounts,
  poolMetrics,
} from './gauges.js';
export { httpMetrics, UNMATCHED_ROUTE } from './http.js';
export { metricsListener, type MetricsListenerOptions } from './listener.js';
export { METRIC_PREFIX, Registry } from './registry.js';
