export { backoff } from './backoff.js';
export { Broker, type BrokerSettings } from './broker.js';
export { type Consumer, type ConsumerSpec, DEAD_LETTER_REASON_HEADER, DEFAULT_RETRY_DELAYS_MS } from './consumer.js';
export type { BrokerMetrics } from './metrics.js';
export { type ConsumerQueue, type PublishOptions, type Publisher, type PublisherSettings } from './publisher.js';
export { startSubscription, type Subscription, type SubscriptionSpec } from './subscription.js';
export { originalRoutingKey, replayDeadLetters, type ReplayResult, type ReplaySettings } from './replay.js';
export { CRASH_LOOP_DELIVERY_LIMIT, deadLetterQueueOf, retryQueueOf } from './topology.js';
export { dispatcher, type EventHandler, on } from './handlers.js';
