import { connect, type AmqpConnectionManager, type ChannelWrapper } from 'amqp-connection-manager';
import type { Channel } from 'amqplib';
import type { Logger } from '@recipes/logging';
import { type Consumer, type ConsumerSpec, startConsumer } from './consumer.js';
import { socketOf, writeFramesPerTurn } from './frame-writes.js';
import { type BrokerMetrics, noMetrics } from './metrics.js';
import { createPublisher, type Publisher, type PublisherSettings } from './publisher.js';
import { startSubscription, type Subscription, type SubscriptionSpec } from './subscription.js';

export interface BrokerSettings {
  /** One node's URL, or a cluster's nodes' URLs comma-separated: each reconnect tries the next. */
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

/**
 * One connection to RabbitMQ that reconnects by itself (amqp-connection-manager). Every channel declares
 * its topology in its `setup`, which runs again after each reconnect, so a restarted broker gets it back.
 * Publishing and consuming live in publisher.ts and consumer.ts; this class owns the connection and its channels.
 */
export class Broker {
  private readonly manager: AmqpConnectionManager;
  private readonly exchange: string;
  private readonly logger: Logger;
  private readonly reconnectDelayMs: number;
  private readonly metrics: BrokerMetrics;
  private readonly consumers = new Set<Consumer>();
  private closed = false;
  /** A reconnect is due for a channel that could not be set up (see `healUnopened`). */
  private healing = false;

  constructor({
    url,
    exchange,
    logger,
    name = 'recipes',
    reconnectDelayMs = 2_000,
    metrics = noMetrics,
  }: BrokerSettings) {
    this.exchange = exchange;
    this.metrics = metrics;
    this.logger = logger;
    this.reconnectDelayMs = reconnectDelayMs;
    // connect() keeps retrying in the background, taking a cluster's nodes in turn; events only report what happens.
    const urls = url
      .split(',')
      .map((nodeUrl) => nodeUrl.trim())
      .filter((nodeUrl) => nodeUrl !== '');
    this.manager = connect(urls, {
      reconnectTimeInSeconds: reconnectDelayMs / 1_000,
      // Without TCP_NODELAY (amqplib leaves Nagle's algorithm on), a small frame written while an earlier
      // one is unacknowledged waits for the broker's delayed ACK: about 40 ms on a hop of every event.
      connectionOptions: { noDelay: true, clientProperties: { connection_name: name } },
    });
    this.manager.on('connect', ({ connection }) => {
      const socket = socketOf(connection);
      if (socket) writeFramesPerTurn(socket);
      logger.info({ broker: name }, 'connected to the broker');
    });
    this.manager.on('disconnect', ({ err }) => logger.warn({ broker: name, err }, 'disconnected from the broker'));
    this.manager.on('connectFailed', ({ err }) =>
      logger.warn({ broker: name, err }, 'cannot reach the broker; retrying'),
    );
    this.manager.on('blocked', ({ reason }) => logger.warn({ broker: name, reason }, 'broker blocks publishing'));
    this.manager.on('unblocked', () => logger.info({ broker: name }, 'broker unblocked publishing'));
  }

  /** Calls `listener` each time a connection to the broker is made, the first and every reconnect. */
  onConnect(listener: () => void): void {
    this.manager.on('connect', () => listener());
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

  /** A publisher on a confirm channel of its own; see `PublisherSettings` for the queues it declares first. */
  createPublisher(settings: PublisherSettings = {}): Publisher {
    return createPublisher(this.host(), settings);
  }

  /** Starts a consumer (see `startConsumer`); closing the broker closes it first. */
  async consume(spec: ConsumerSpec): Promise<Consumer> {
    const consumer = await startConsumer(this.host(), spec);
    this.consumers.add(consumer);
    return {
      close: async () => {
        this.consumers.delete(consumer);
        await consumer.close();
      },
    };
  }

  /** Hears events on a queue of this process alone (see `startSubscription`); closing the broker ends it. */
  subscribe(spec: SubscriptionSpec): Promise<Subscription> {
    return startSubscription(this.host(), spec);
  }

  /** Closes the consumers (waiting for their handlers), then the channels and the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    await this.manager.close();
  }

  private host() {
    return {
      exchange: this.exchange,
      logger: this.logger,
      metrics: this.metrics,
      createChannel: this.createChannel.bind(this),
      healLater: this.healLater.bind(this),
    };
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
        // Before declaring: a channel closed while it declares (the broker shutting down, a declaration it
        // refuses) is given up by amqp-connection-manager, silently, until the next reconnect.
        channel.once('close', () => this.healLater(channel, label, isClosing));
        await declare(channel);
      },
    });
    wrapper.on('error', (err: Error) => {
      this.logger.error({ err, channel: label }, 'broker channel setup failed');
      this.healUnopened(label, isClosing);
    });
    return wrapper;
  }

  /**
   * A channel that could not even be opened (e.g. 'Channel ended' as the broker stopped and started) is
   * given up by amqp-connection-manager as well, with no channel whose 'close' would heal it: while the
   * same connection stays up, every publish on it would time out (the outbox of one instance stuck for
   * good in a fault campaign, its readiness up). Reconnect, once for however many channels failed.
   */
  private healUnopened(label: string, isClosing: () => boolean): void {
    if (this.closed || isClosing() || this.healing) return;
    this.healing = true;
    const connection = this.manager.connection;
    setTimeout(() => {
      this.healing = false;
      if (this.closed || isClosing() || !connection || this.manager.connection !== connection) return;
      this.logger.warn({ channel: label }, 'a broker channel could not be set up: reconnecting');
      this.manager.reconnect();
    }, this.reconnectDelayMs).unref();
  }

  /**
   * amqp-connection-manager re-creates channels only when it reconnects, so a channel the broker closed on
   * its own (a consumer timeout, a deleted queue, a declaration refused or cut short) while the connection
   * stays up would stay dead, and every publish on it time out. Reconnect.
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
