import { connect, type AmqpConnectionManager, type ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage } from 'amqplib';
import { eventEnvelopeSchema, type EventEnvelope } from '@recipes/contracts';
import { eventLogger, type Logger } from '@recipes/logging';

export interface BrokerSettings {
  url: string;
  /** The durable topic exchange every event goes through, e.g. `recipes.events`. */
  exchange: string;
  logger: Logger;
  /** Shown in the broker's connection list; defaults to `recipes`. */
  name?: string;
  /** Wait between reconnect attempts; defaults to 2 s. */
  reconnectDelayMs?: number;
  /** Told of every publish and delivery outcome, e.g. to count them (see @recipes/metrics). */
  metrics?: BrokerMetrics;
}

/** Outcomes by event type: each delivery ends as consumed or as a failure, some failures as dead letters. */
export interface BrokerMetrics {
  published(type: string): void;
  publishFailed(type: string): void;
  consumed(type: string): void;
  consumeFailed(type: string): void;
  deadLettered(type: string): void;
}

const noMetrics: BrokerMetrics = {
  published: () => undefined,
  publishFailed: () => undefined,
  consumed: () => undefined,
  consumeFailed: () => undefined,
  deadLettered: () => undefined,
};

export interface PublishOptions {
  /** Reject when the broker has not confirmed within this time. */
  timeoutMs?: number;
}

export interface Publisher {
  /** Resolves once the broker confirmed the event; rejects on a nack or after the timeout. */
  publish(event: EventEnvelope, options?: PublishOptions): Promise<void>;
}

export interface ConsumerSpec {
  /** The consuming service's durable queue; its dead letters go to `${queue}.dlq`. */
  queue: string;
  /** Event types (routing keys) this queue receives. */
  bindings: string[];
  /** Unacknowledged messages in flight at once; defaults to 16. */
  prefetch?: number;
  /** Deliveries before a failing message is dead-lettered (at least 1). */
  maxAttempts: number;
  /** Commit the handler's effects before resolving: the message is acked only then. */
  handle: (event: EventEnvelope, log: Logger) => Promise<void>;
}

export interface Consumer {
  /** Stops receiving and waits for the handlers in flight to finish. */
  close(): Promise<void>;
}

const DEFAULT_PUBLISH_TIMEOUT_MS = 5_000;

/** Waits longer after each failed attempt, so a failing message does not spin in a hot loop. */
function retryDelayMs(attempt: number): number {
  return Math.min(100 * 2 ** (attempt - 1), 5_000);
}

function parseEnvelope(content: Buffer): EventEnvelope | undefined {
  try {
    const parsed = eventEnvelopeSchema.safeParse(JSON.parse(content.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The broker has an AMQP reply code on errors that a retry will not fix (e.g. 406: queue arguments differ). */
function isBrokerRefusal(error: unknown): boolean {
  return typeof (error as { code?: unknown } | undefined)?.code === 'number';
}

/**
 * One connection to RabbitMQ that reconnects by itself (amqp-connection-manager). Every channel declares
 * its topology in its `setup`, which runs again after each reconnect, so a restarted broker gets it back.
 */
export class Broker {
  private readonly manager: AmqpConnectionManager;
  private readonly exchange: string;
  private readonly logger: Logger;
  private readonly reconnectDelayMs: number;
  private readonly metrics: BrokerMetrics;
  private readonly consumers = new Set<Consumer>();
  private closed = false;

  constructor({ url, exchange, logger, name = 'recipes', reconnectDelayMs = 2_000, metrics = noMetrics }: BrokerSettings) {
    this.exchange = exchange;
    this.metrics = metrics;
    this.logger = logger;
    this.reconnectDelayMs = reconnectDelayMs;
    // connect() keeps retrying in the background; events only report what happens.
    this.manager = connect(url, {
      reconnectTimeInSeconds: reconnectDelayMs / 1_000,
      connectionOptions: { clientProperties: { connection_name: name } },
    });
    this.manager.on('connect', () => logger.info({ broker: name }, 'connected to the broker'));
    this.manager.on('disconnect', ({ err }) => logger.warn({ broker: name, err }, 'disconnected from the broker'));
    this.manager.on('connectFailed', ({ err }) => logger.warn({ broker: name, err }, 'cannot reach the broker; retrying'));
    this.manager.on('blocked', ({ reason }) => logger.warn({ broker: name, reason }, 'broker blocks publishing'));
    this.manager.on('unblocked', () => logger.info({ broker: name }, 'broker unblocked publishing'));
  }

  /** For readiness probes. */
  isConnected(): boolean {
    return this.manager.isConnected();
  }

  /**
   * Messages ready in `queue` (e.g. a dead-letter queue), for a metrics scrape; undefined while the broker
   * is unreachable or the queue does not exist. Asked on a short-lived channel of its own: asking about a
   * missing queue makes the broker close the channel it was asked on.
   */
  async queueDepth(queue: string): Promise<number | undefined> {
    const connection = this.manager.connection;
    if (!connection) return undefined;
    try {
      const probe = await connection.createChannel();
      probe.on('error', () => undefined); // a missing queue also emits 'error': unheard, it would crash the process
      try {
        return (await probe.checkQueue(queue)).messageCount;
      } finally {
        await probe.close().catch(() => undefined);
      }
    } catch {
      return undefined;
    }
  }

  createPublisher({ timeoutMs: defaultTimeoutMs = DEFAULT_PUBLISH_TIMEOUT_MS }: PublishOptions = {}): Publisher {
    const { exchange, metrics } = this;
    const channel = this.createChannel('publisher', true, () => false, async (raw) => {
      await raw.assertExchange(exchange, 'topic', { durable: true });
    });
    return {
      async publish(event, { timeoutMs = defaultTimeoutMs } = {}) {
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
          });
          metrics.published(event.type);
        } catch (error) {
          metrics.publishFailed(event.type);
          const reason = error instanceof Error ? error.message : String(error);
          throw new Error(`event ${event.id} (${event.type}) was not confirmed by the broker: ${reason}`, { cause: error });
        }
      },
    };
  }

  /**
   * Declares `spec.queue` (a quorum queue whose failing messages are dead-lettered to `${queue}.dlq`),
   * binds it and starts consuming. Resolves once consuming (waiting for the broker if it is unreachable);
   * rejects when the broker refuses the topology, e.g. a queue declared before with other arguments.
   */
  async consume(spec: ConsumerSpec): Promise<Consumer> {
    const { queue, bindings, prefetch = 16, maxAttempts } = spec;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error(`maxAttempts must be a positive integer, got ${maxAttempts}`);
    const { exchange } = this;
    const deadLetterExchange = `${exchange}.dlx`;
    const deadLetterQueue = `${queue}.dlq`;
    const inFlight = new Set<Promise<void>>();
    let closing = false;
    let current: { channel: Channel; consumerTag: string } | undefined;
    let settleReady: (error?: unknown) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      settleReady = (error) => (error ? reject(error) : resolve());
    });

    const channel = this.createChannel(queue, false, () => closing, async (raw) => {
      try {
        await raw.assertExchange(exchange, 'topic', { durable: true });
        // Direct, keyed by the source queue's name: every service's dead letters reach only its own DLQ.
        await raw.assertExchange(deadLetterExchange, 'direct', { durable: true });
        await raw.assertQueue(deadLetterQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        await raw.bindQueue(deadLetterQueue, deadLetterExchange, queue);
        await raw.assertQueue(queue, {
          durable: true,
          arguments: {
            'x-queue-type': 'quorum',
            // The broker's backstop, e.g. for a message that crashes the process each time: after
            // maxAttempts deliveries it is dead-lettered even though no handler ever nacked it.
            'x-delivery-limit': maxAttempts - 1,
            'x-dead-letter-exchange': deadLetterExchange,
            'x-dead-letter-routing-key': queue,
          },
        });
        for (const type of bindings) await raw.bindQueue(queue, exchange, type);
        await raw.prefetch(prefetch);
        if (closing) return;
        const { consumerTag } = await raw.consume(queue, (message) => {
          if (!message) {
            // The queue was deleted under us: a reconnect declares it again.
            this.logger.warn({ queue }, 'the broker cancelled the consumer');
            if (!closing) this.healLater(raw, queue, () => closing);
            return;
          }
          const work = this.deliver(raw, message, spec).finally(() => inFlight.delete(work));
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
        this.consumers.delete(consumer);
        settleReady(new Error(`consumer of ${queue} closed before it started`)); // no-op once started
        if (current) await current.channel.cancel(current.consumerTag).catch(() => undefined);
        // Handlers ack on the channel, so it stays open until they are done.
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await channel.close().catch(() => undefined);
      },
    };
    this.consumers.add(consumer);
    try {
      await ready;
    } catch (error) {
      await consumer.close();
      throw error;
    }
    return consumer;
  }

  /** Closes the consumers (waiting for their handlers), then the channels and the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    await this.manager.close();
  }

  private async deliver(channel: Channel, message: ConsumeMessage, spec: ConsumerSpec): Promise<void> {
    const { queue, maxAttempts } = spec;
    // Counted by routing key: always one the queue is bound to, so the label stays bounded even for garbage.
    const type = message.fields.routingKey;
    const event = parseEnvelope(message.content);
    if (!event) {
      this.logger.error({ queue, messageId: message.properties.messageId, routingKey: message.fields.routingKey }, 'malformed event: dead-lettered');
      this.metrics.consumeFailed(type);
      this.metrics.deadLettered(type);
      this.settle(channel, queue, () => channel.nack(message, false, false));
      return;
    }
    const log = eventLogger(this.logger, event);
    // The quorum queue counts earlier failed deliveries; the header is absent on the first one.
    const previous = message.properties.headers?.['x-delivery-count'];
    const attempt = (typeof previous === 'number' ? previous : 0) + 1;
    try {
      await spec.handle(event, log);
      this.settle(channel, queue, () => channel.ack(message));
      this.metrics.consumed(type);
    } catch (err) {
      const last = attempt >= maxAttempts;
      this.metrics.consumeFailed(type);
      if (last) this.metrics.deadLettered(type);
      log.error({ err, queue, attempt, maxAttempts }, last ? 'event handler failed for the last time: dead-lettered' : 'event handler failed: will retry');
      if (!last) await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
      this.settle(channel, queue, () => channel.nack(message, false, !last));
    }
  }

  /** Acks or nacks; on a channel lost meanwhile the broker redelivers the message, so there is nothing to do. */
  private settle(channel: Channel, queue: string, action: () => void): void {
    try {
      action();
    } catch (err) {
      this.logger.warn({ err, queue }, 'channel closed before the message was settled: the broker will redeliver it');
    }
  }

  private createChannel(
    label: string,
    confirm: boolean,
    isClosing: () => boolean,
    declare: (channel: Channel) => Promise<void>,
  ): ChannelWrapper {
    const wrapper = this.manager.createChannel({
      name: label,
      confirm,
      setup: async (channel: Channel) => {
        // An 'error' event nobody listens to would crash the process (e.g. the broker refusing a declaration).
        channel.on('error', (err: Error) => this.logger.error({ err, channel: label }, 'broker channel error'));
        await declare(channel);
        channel.once('close', () => this.healLater(channel, label, isClosing));
      },
    });
    wrapper.on('error', (err: Error) => this.logger.error({ err, channel: label }, 'broker channel setup failed'));
    return wrapper;
  }

  /**
   * amqp-connection-manager re-creates channels only when it reconnects, so a channel the broker closed on
   * its own (a consumer timeout, a deleted queue) while the connection stays up would stay dead. Reconnect.
   */
  private healLater(channel: Channel, label: string, isClosing: () => boolean): void {
    if (this.closed || isClosing()) return;
    setTimeout(() => {
      if (this.closed || isClosing() || this.manager.connection?.connection !== channel.connection) return;
      this.logger.warn({ channel: label }, 'the broker closed a channel: reconnecting');
      this.manager.reconnect();
    }, this.reconnectDelayMs).unref();
  }
}
