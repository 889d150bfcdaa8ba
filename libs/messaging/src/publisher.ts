import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Channel } from 'amqplib';
import type { EventEnvelope } from '@recipes/contracts';
import type { BrokerMetrics } from './metrics.js';
import { declareConsumerQueue } from './topology.js';

export interface PublishOptions {
  /** Reject when the broker has not confirmed within this time. */
  timeoutMs?: number;
  /** The W3C trace context the event was written in (its outbox row's), sent as the `traceparent` header. */
  traceparent?: string | null;
}

/**
 * A queue that must exist before anything is published to it: a consumer's, with the types it takes from this
 * publisher.
 */
export interface ConsumerQueue {
  queue: string;
  bindings: readonly string[];
}

export interface PublisherSettings extends PublishOptions {
  /**
   * The queues of the consumers of what this publisher sends, declared and bound (at start and after each
   * reconnect) before any event goes out: the broker confirms an event that no queue takes, and drops it.
   */
  consumers?: readonly ConsumerQueue[];
}

export interface Publisher {
  /** Resolves once the broker confirmed the event; rejects on a nack or after the timeout. */
  publish(event: EventEnvelope, options?: PublishOptions): Promise<void>;
}

/** What a publisher needs of the broker connection it runs on. */
export interface PublisherHost {
  exchange: string;
  metrics: BrokerMetrics;
  createChannel(
    label: string,
    confirm: boolean,
    isClosing: () => boolean,
    declare: (channel: Channel) => Promise<void>,
  ): ChannelWrapper;
}

const DEFAULT_PUBLISH_TIMEOUT_MS = 5_000;

export function createPublisher(
  host: PublisherHost,
  { timeoutMs: defaultTimeoutMs = DEFAULT_PUBLISH_TIMEOUT_MS, consumers = [] }: PublisherSettings = {},
): Publisher {
  const { exchange, metrics } = host;
  const channel = host.createChannel(
    'publisher',
    true,
    () => false,
    async (raw) => {
      await raw.assertExchange(exchange, 'topic', { durable: true });
      for (const { queue, bindings } of consumers) await declareConsumerQueue(raw, exchange, queue, bindings);
    },
  );
  return {
    async publish(event, { timeoutMs = defaultTimeoutMs, traceparent } = {}) {
      try {
        // The timeout matters: while the broker is down the channel would otherwise hold the message
        // until it comes back, and the outbox relay needs a rejection to schedule its retry.
        await channel.publish(exchange, event.type, Buffer.from(JSON.stringify(event)), {
          persistent: true,
          contentType: 'application/json',
          messageId: event.id,
          type: event.type,
          correlationId: event.correlationId,
          timestamp: Math.floor(Date.parse(event.occurredAt) / 1_000),
          timeout: timeoutMs,
          ...(traceparent ? { headers: { traceparent } } : {}),
        });
        metrics.published(event.type);
      } catch (error) {
        metrics.publishFailed(event.type);
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`event ${event.id} (${event.type}) was not confirmed by the broker: ${reason}`, {
          cause: error,
        });
      }
    },
  };
}
