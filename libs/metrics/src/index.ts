export { admissionMetrics, type AdmissionLaneState, type AdmissionMetrics, gatewayShedMetric } from './admission.js';
export { type EventMetrics, eventMetrics } from './events.js';
export {
  accountDeletionMetrics,
  boundedRead,
  deadLetterQueueMetrics,
  DEFAULT_READ_TIMEOUT_MS,
  eventQueueMetrics,
  openStreamsMetric,
  type OutboxBacklog,
  outboxMetrics,
  type PoolCounts,
  poolMetrics,
  type QueueDepth,
  queriedGauge,
} from './gauges.js';
export { type PushFailure, type PushMetrics, pushMetrics, type SubscriptionRemoval } from './push.js';
export { httpMetrics, UNMATCHED_ROUTE, type UpstreamRoute } from './http.js';
export { metricsListener, type MetricsListenerOptions } from './listener.js';
export { METRIC_PREFIX, Registry } from './registry.js';
