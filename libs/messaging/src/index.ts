export { Broker, type BrokerMetrics, type BrokerSettings, type Consumer, type ConsumerSpec, type PublishOptions, type Publisher } from './broker.js';
export { originalRoutingKey, replayDeadLetters, type ReplayResult, type ReplaySettings } from './replay.js';
