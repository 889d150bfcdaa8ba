export { Broker, type BrokerSettings, type Consumer, type ConsumerSpec, type PublishOptions, type Publisher } from './broker.js';
