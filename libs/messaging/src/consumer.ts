import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage, Options } from 'amqplib';
import { eventEnvelopeSchema, type EventEnvelope } from '@recipes/contracts';
import { eventLogger, type Logger } from '@recipes/logging';
import type { BrokerMetrics } from './metrics.js';
import { declareConsumerQueue, declareRetryQueues, retryQueueOf } from './topology.js';

export interface ConsumerSpec {
  /** The consuming service's durable queue; its dead letters go to `${queue}.dlq`. */
  queue: string;
  /** Event types (routing keys) this queue receives. */
  bindings: string[];
  /** Unacknowledged messages in flight at once; defaults to 16. */
  prefetch?: number;
  /** Failed attempts of an event before it is dead-lettered (at least 1). Unavailable dependencies do not count. */
  maxAttempts: number;
  /** How long a failed event waits before each next attempt; the last delay repeats. Defaults to 5 s, 30 s, 2 min, 10 min. */
  retryDelaysMs?: readonly number[];
  /** Whether what the handlers need (the database) is there: while it is not, deliveries wait. */
  isReady?: () => Promise<boolean>;
  /** Whether a handler's error means a dependency is unavailable for the moment, rather than that the event is at fault. */
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
  createChannel(label: string, confirm: boolean, isClosing: () => boolean, declare: (channel: Channel) => Promise<void>): ChannelWrapper;
  healLater(channel: Channel, label: string, isClosing: () => boolean): void;
}

export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];
const READINESS_POLL_MS = 500;
const RETRY_PUBLISH_TIMEOUT_MS = 10_000;
/** Our count of failed attempts, carried from one copy of a message to the next through the delay queues. */
export const ATTEMPTS_HEADER = 'x-attempts';
/** The event's type, which a copy coming back from a delay queue no longer has as its routing key. */
export const ORIGINAL_ROUTING_KEY_HEADER = 'x-original-routing-key';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

function headersOf(message: ConsumeMessage): Record<string, unknown> {
  return (message.properties.headers ?? {}) as Record<string, unknown>;
}

function typeOf(message: ConsumeMessage): string {
  const original = headersOf(message)[ORIGINAL_ROUTING_KEY_HEADER];
  return typeof original === 'string' ? original : message.fields.routingKey;
}

function failedAttemptsOf(message: ConsumeMessage): number {
  const attempts = headersOf(message)[ATTEMPTS_HEADER];
  return typeof attempts === 'number' && Number.isInteger(attempts) && attempts >= 0 ? attempts : 0;
}

/** Waits shared by every delivery of a consumer while the handlers' dependencies are away. */
function dependencyGate(isReady: () => Promise<boolean>, log: Logger, isClosing: () => boolean) {
  let recovery: Promise<void> | undefined;
  const ready = () => isReady().catch(() => false);
  return {
    ready,
    /** Before a delivery is handled: resolves at once unless the dependencies are known to be away. */
    whileDown: (): Promise<void> => recovery ?? Promise.resolve(),
    /** After a failure caused by a dependency: resolves once it is back (or the consumer closes). */
    recovered(): Promise<void> {
      recovery ??= (async () => {
        log.warn('a dependency of the event handlers is unavailable: holding deliveries until it is back');
        while (!isClosing() && !(await ready())) await sleep(READINESS_POLL_MS);
        if (!isClosing()) log.info('the dependencies of the event handlers are back: resuming deliveries');
      })().finally(() => {
        recovery = undefined;
      });
      return recovery;
    },
  };
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
  const { queue, bindings, prefetch = 16, maxAttempts, retryDelaysMs = DEFAULT_RETRY_DELAYS_MS, isTransient = () => false } = spec;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  if (retryDelaysMs.length === 0) throw new Error('retryDelaysMs needs at least one delay');
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
  const retries = host.createChannel(`${queue}.retry`, true, isClosing, (raw) => declareRetryQueues(raw, queue, retryDelaysMs.length));

  const settle = (action: () => void) => {
    try {
      action();
    } catch (err) {
      logger.warn({ err, queue }, 'channel closed before the message was settled: the broker will redeliver it');
    }
  };

  async function retryLater(channel: Channel, message: ConsumeMessage, failedAttempts: number, log: Logger): Promise<void> {
    const level = Math.min(failedAttempts, retryDelaysMs.length);
    const { properties } = message;
    // The broker's count of deliveries belongs to this copy, not to the next.
    const { 'x-delivery-count': _deliveries, ...kept } = headersOf(message);
    const headers = { ...kept, [ATTEMPTS_HEADER]: failedAttempts, [ORIGINAL_ROUTING_KEY_HEADER]: typeOf(message) };
    const options: Options.Publish & { timeout: number } = {
      persistent: true,
      contentType: properties.contentType,
      messageId: properties.messageId,
      correlationId: properties.correlationId,
      type: properties.type,
      timestamp: properties.timestamp,
      headers,
      expiration: String(retryDelaysMs[level - 1]),
      timeout: RETRY_PUBLISH_TIMEOUT_MS,
    };
    try {
      await retries.sendToQueue(retryQueueOf(queue, level), message.content, options);
      settle(() => channel.ack(message));
    } catch (err) {
      // Not parked for later: back to the queue at once, counted by the broker's backstop only.
      log.warn({ err, queue }, 'could not park the event for its next attempt: requeued');
      settle(() => channel.nack(message, false, true));
    }
  }

  async function deliver(channel: Channel, message: ConsumeMessage): Promise<void> {
    // Counted by the event's type as routed: always one the queue is bound to, so the label stays bounded even for garbage.
    const type = typeOf(message);
    const event = parseEnvelope(message.content);
    if (!event) {
      logger.error({ queue, messageId: message.properties.messageId, routingKey: type }, 'malformed event: dead-lettered');
      metrics.consumeFailed(type);
      metrics.deadLettered(type);
      settle(() => channel.nack(message, false, false));
      return;
    }
    const log = eventLogger(logger, event);
    for (let held = 0; ; held += 1) {
      await gate.whileDown();
      // Left unacknowledged: the broker hands it to another consumer once this channel closes.
      if (closing) return;
      try {
        await spec.handle(event, log);
        settle(() => channel.ack(message));
        metrics.consumed(type);
        return;
      } catch (err) {
        metrics.consumeFailed(type);
        if (isTransient(err) || !(await gate.ready())) {
          log.warn({ err, queue }, 'event handler met an unavailable dependency: held until it is back, not counted as an attempt');
          await gate.recovered();
          // A dependency that answers readiness but still fails (another service's look-up): back off.
          await sleep(Math.min(250 * 2 ** held, 5_000));
          continue;
        }
        const failedAttempts = failedAttemptsOf(message) + 1;
        const last = failedAttempts >= maxAttempts;
        log.error({ err, queue, attempt: failedAttempts, maxAttempts }, last ? 'event handler failed for the last time: dead-lettered' : 'event handler failed: will retry later');
        if (last) {
          metrics.deadLettered(type);
          settle(() => channel.nack(message, false, false));
        } else await retryLater(channel, message, failedAttempts, log);
        return;
      }
    }
  }

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
