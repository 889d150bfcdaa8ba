import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Channel } from 'amqplib';
import type { EventEnvelope } from '@recipes/contracts';
import type { Logger } from '@recipes/logging';
import { dependencyGate } from './dependency-gate.js';
import { deliverer } from './delivery.js';
import type { BrokerMetrics } from './metrics.js';
import { checkRetryPolicy, DEFAULT_RETRY_DELAYS_MS, type RetryPolicy } from './retry.js';
import { deadLetterExchangeOf, declareConsumerQueue, declareRetryQueues } from './topology.js';

// Where each message goes after a delivery is decided in delivery.ts (retry.ts for the attempts); this
// file wires the channels: declaring, consuming, closing.
export {
  ATTEMPTS_HEADER,
  DEAD_LETTER_REASON_HEADER,
  ORIGINAL_ROUTING_KEY_HEADER,
  REDELIVERIES_HEADER,
} from './message.js';
export { DEFAULT_RETRY_DELAYS_MS } from './retry.js';

export interface ConsumerSpec {
  /** The consuming service's durable queue; its dead letters go to `${queue}.dlq`. */
  queue: string;
  /** Event types (routing keys) this queue receives. */
  bindings: string[];
  /** Unacknowledged messages in flight at once; defaults to 16. */
  prefetch?: number;
  /** Failed attempts of an event before it is dead-lettered (at least 1). Unavailable dependencies do not count. */
  maxAttempts: number;
  /**
   * How long a failed event waits before each next attempt; the last delay repeats. Defaults to 5 s, 30 s, 2 min, 10
   * min.
   */
  retryDelaysMs?: readonly number[];
  /** Whether what the handlers need (the database) is there: while it is not, deliveries wait. */
  isReady?: () => Promise<boolean>;
  /**
   * Whether a handler's error means a dependency is unavailable for the moment, rather than that the event is at fault.
   */
  isTransient?: (error: unknown) => boolean;
  /** Commit the handler's effects before resolving: the message is acked only then. */
  handle: (event: EventEnvelope, log: Logger) => Promise<void>;
}

export interface Consumer {
  /** Stops receiving and waits for the handlers in flight to finish. */
  close(): Promise<void>;
}

/** What a consumer needs of the broker connection it runs on. */
export interface ConsumerHost {
  exchange: string;
  logger: Logger;
  metrics: BrokerMetrics;
  createChannel(
    label: string,
    confirm: boolean,
    isClosing: () => boolean,
    declare: (channel: Channel) => Promise<void>,
  ): ChannelWrapper;
  healLater(channel: Channel, label: string, isClosing: () => boolean): void;
}

/** The broker has an AMQP reply code on errors that a retry will not fix (e.g. 406: queue arguments differ). */
function isBrokerRefusal(error: unknown): boolean {
  return typeof (error as { code?: unknown } | undefined)?.code === 'number';
}

/**
 * Declares `spec.queue` and its delay and dead-letter queues, binds it and starts consuming. Resolves once
 * consuming (waiting for the broker if it is unreachable); rejects when the broker refuses the topology,
 * e.g. a queue declared before with other arguments.
 *
 * A delivery whose handler fails because a dependency is away (the database restarting, the owner of a
 * look-up unreachable) is held, unacknowledged, until the dependency is back, and handled again: a
 * passing fault is not an attempt, and never sends an event to the dead-letter queue. While the
 * dependencies are away, further deliveries wait too, and no more than `prefetch` are taken. A failure
 * of the event itself counts: the message waits in a delay queue (a per-message TTL, one queue per
 * level), and is dead-lettered after `maxAttempts`.
 */
export async function startConsumer(host: ConsumerHost, spec: ConsumerSpec): Promise<Consumer> {
  const {
    queue,
    bindings,
    prefetch = 16,
    maxAttempts,
    retryDelaysMs = DEFAULT_RETRY_DELAYS_MS,
    isTransient = () => false,
  } = spec;
  const policy: RetryPolicy = { maxAttempts, retryDelaysMs };
  checkRetryPolicy(policy);
  const { exchange, logger, metrics } = host;
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  const isClosing = () => closing;
  const gate = dependencyGate(spec.isReady ?? (async () => true), logger.child({ queue }), isClosing);
  let current: { channel: Channel; consumerTag: string } | undefined;
  let settleReady: (error?: unknown) => void = () => undefined;
  const started = new Promise<void>((resolve, reject) => {
    settleReady = (error) => (error ? reject(error) : resolve());
  });

  // Copies for the delay queues are published with confirms, and the original acked only once confirmed.
  const retries = host.createChannel(`${queue}.retry`, true, isClosing, (raw) =>
    declareRetryQueues(raw, queue, retryDelaysMs.length),
  );

  const settle = (action: () => void) => {
    try {
      action();
    } catch (err) {
      logger.warn({ err, queue }, 'channel closed before the message was settled: the broker will redeliver it');
    }
  };

  const deliver = deliverer({
    queue,
    logger,
    metrics,
    policy,
    gate,
    parking: { retries, queue, deadLetterExchange: deadLetterExchangeOf(exchange), policy, settle },
    isClosing,
    isTransient,
    handle: spec.handle,
  });

  const channel = host.createChannel(queue, false, isClosing, async (raw) => {
    try {
      await declareConsumerQueue(raw, exchange, queue, bindings);
      await raw.prefetch(prefetch);
      if (closing) return;
      const { consumerTag } = await raw.consume(queue, (message) => {
        if (!message) {
          // The queue was deleted under us: a reconnect declares it again.
          logger.warn({ queue }, 'the broker cancelled the consumer');
          if (!closing) host.healLater(raw, queue, isClosing);
          return;
        }
        const work = deliver(raw, message).finally(() => inFlight.delete(work));
        inFlight.add(work);
      });
      current = { channel: raw, consumerTag };
      settleReady();
    } catch (error) {
      if (isBrokerRefusal(error)) settleReady(error);
      throw error;
    }
  });

  const consumer: Consumer = {
    close: async () => {
      if (closing) return;
      closing = true;
      settleReady(new Error(`consumer of ${queue} closed before it started`)); // no-op once started
      if (current) await current.channel.cancel(current.consumerTag).catch(() => undefined);
      // Handlers ack on the channel, so it stays open until they are done.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await Promise.all([channel.close().catch(() => undefined), retries.close().catch(() => undefined)]);
    },
  };
  try {
    await started;
  } catch (error) {
    await consumer.close();
    throw error;
  }
  return consumer;
}
