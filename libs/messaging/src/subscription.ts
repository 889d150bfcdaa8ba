import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Channel } from 'amqplib';
import type { EventEnvelope } from '@recipes/contracts';
import { eventLogger, type Logger } from '@recipes/logging';
import { inSpan } from '@recipes/tracing';
import { parseEnvelope } from './message.js';

export interface SubscriptionSpec {
  /** Event types (routing keys) to hear. */
  bindings: string[];
  /** What to do with each event; an error is logged and the event dropped, for nothing waits on it. */
  handle: (event: EventEnvelope, log: Logger) => Promise<void>;
  /**
   * Called each time the subscription is (re)established after the first: events published while it was
   * away were not heard, so whoever relies on it catches up from where the facts are kept.
   */
  onResumed?: () => void;
}

export interface Subscription {
  close(): Promise<void>;
}

/** What a subscription needs of the broker connection it runs on. */
export interface SubscriptionHost {
  exchange: string;
  logger: Logger;
  createChannel(
    label: string,
    confirm: boolean,
    isClosing: () => boolean,
    declare: (channel: Channel) => Promise<void>,
  ): ChannelWrapper;
}

/**
 * Hears events on a queue of this process alone (exclusive, deleted with its connection), for what only
 * this instance cares about, e.g. the streams it holds: unlike a service's durable queue, every instance
 * gets every event, and nothing is kept for an instance that is gone. Deliveries are not acknowledged:
 * an event is a prompt, never the only copy of a fact.
 */
export async function startSubscription(
  host: SubscriptionHost,
  { bindings, handle, onResumed }: SubscriptionSpec,
): Promise<Subscription> {
  let closing = false;
  let established = 0;
  const wrapper = host.createChannel(
    'subscription',
    false,
    () => closing,
    async (channel) => {
      await channel.assertExchange(host.exchange, 'topic', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      for (const type of bindings) await channel.bindQueue(queue, host.exchange, type);
      await channel.consume(
        queue,
        (message) => {
          if (!message) return;
          const parsed = parseEnvelope(message.content);
          if (!parsed) {
            host.logger.warn({ queue }, 'subscription: a message that is not an event envelope was dropped');
            return;
          }
          const log = eventLogger(host.logger, parsed);
          const failed = (err: unknown) => log.error({ err }, 'subscription handler failed');
          try {
            // In the trace of the event's producer, as a consumer's handler is (delivery.ts).
            inSpan(`subscription handle ${parsed.type}`, () => handle(parsed, log), message.properties.headers).catch(
              failed,
            );
          } catch (err) {
            failed(err); // thrown before it returned a promise: escaping, it would make amqplib close the channel
          }
        },
        { noAck: true },
      );
      established += 1;
      if (established > 1) onResumed?.();
    },
  );
  await wrapper.waitForConnect();
  return {
    async close() {
      closing = true;
      await wrapper.close();
    },
  };
}
