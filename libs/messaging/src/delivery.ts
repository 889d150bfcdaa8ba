import type { Channel, ConsumeMessage } from 'amqplib';
import type { EventEnvelope } from '@recipes/contracts';
import { eventLogger, type Logger } from '@recipes/logging';
import { inSpan } from '@recipes/tracing';
import { backoff } from './backoff.js';
import { type DependencyGate, sleep } from './dependency-gate.js';
import type { BrokerMetrics } from './metrics.js';
import { deliveriesOf, failedAttemptsOf, parseEnvelope, redeliveriesOf, typeOf } from './message.js';
import { deadLetter, isLastAttempt, type Parking, putBack, type RetryPolicy, retryLater } from './retry.js';
import { CRASH_LOOP_REDELIVERIES, PUT_BACK_AFTER_DELIVERIES } from './topology.js';

/** 0.25 s, 0.5 s … up to 5 s: the wait between tries of a handler whose dependency answers but still fails. */
const heldBackoffMs = backoff({ firstMs: 250, maxMs: 5_000 });

export interface DeliverySettings {
  queue: string;
  logger: Logger;
  metrics: BrokerMetrics;
  policy: RetryPolicy;
  gate: DependencyGate;
  parking: Parking;
  isClosing: () => boolean;
  isTransient: (error: unknown) => boolean;
  handle: (event: EventEnvelope, log: Logger) => Promise<void>;
}

/** The error's message, short, for the dead-letter reason header. */
const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

/**
 * What happens to one delivered message: a malformed one is dead-lettered at once; a handled one is acked;
 * one whose handler met an unavailable dependency is held and handled again once it is back (not an
 * attempt); one whose handler failed otherwise goes to its next attempt, or to the dead letters. One
 * redelivered often (connections lost while it was held) is put back as a new copy before the broker's
 * delivery limit could dead-letter it; past `CRASH_LOOP_REDELIVERIES`, it is taken for one whose handling
 * crashes the consumer. Each dead letter says why in its `x-dead-letter-reason` header.
 */
export function deliverer(settings: DeliverySettings): (channel: Channel, message: ConsumeMessage) => Promise<void> {
  const { queue, logger, metrics, policy, gate, parking, isClosing, isTransient, handle } = settings;
  const { settle } = parking;
  // One listener a channel, however many deliveries it holds.
  const watched = new WeakSet<Channel>();
  const lostChannels = new WeakSet<Channel>();
  const watch = (channel: Channel) => {
    if (watched.has(channel)) return;
    watched.add(channel);
    channel.once('close', () => lostChannels.add(channel));
  };

  return async function deliver(channel, message) {
    // Counted by the event's type as routed: always one the queue is bound to, so the label stays bounded even for
    // garbage.
    const type = typeOf(message);
    const event = parseEnvelope(message.content);
    if (!event) {
      logger.error(
        { queue, messageId: message.properties.messageId, routingKey: type },
        'malformed event: dead-lettered',
      );
      metrics.consumeFailed(type);
      metrics.deadLettered(type);
      await deadLetter(
        parking,
        channel,
        message,
        failedAttemptsOf(message),
        'malformed: not an event envelope',
        logger,
      );
      return;
    }
    const log = eventLogger(logger, event);
    const redeliveries = redeliveriesOf(message);
    if (redeliveries >= CRASH_LOOP_REDELIVERIES) {
      log.error({ queue, redeliveries }, 'event redelivered too often to be handled: dead-lettered');
      metrics.deadLettered(type);
      const reason = `redelivered ${redeliveries} times without being settled: its handling may crash the consumer`;
      await deadLetter(parking, channel, message, failedAttemptsOf(message), reason, log);
      return;
    }
    if (deliveriesOf(message) >= PUT_BACK_AFTER_DELIVERIES) {
      log.warn({ queue, redeliveries }, 'event redelivered often: put back as a new copy');
      await putBack(parking, channel, message, log);
      return;
    }
    // A channel lost while the event is held: the broker hands it out again, to this consumer's next channel
    // or another's, so this delivery stops rather than handle it a second time.
    watch(channel);
    await handleHeld(channel, message, event, type, log, () => lostChannels.has(channel));
  };

  async function handleHeld(
    channel: Channel,
    message: ConsumeMessage,
    event: EventEnvelope,
    type: string,
    log: Logger,
    isChannelLost: () => boolean,
  ): Promise<void> {
    for (let held = 0; ; held += 1) {
      await gate.whileDown();
      // Left unacknowledged: the broker hands it to another consumer once this channel closes.
      if (isClosing() || isChannelLost()) return;
      const started = performance.now();
      const took = () => (performance.now() - started) / 1_000;
      try {
        // Under the consume span, or the publisher's traceparent in the headers: the trace goes on.
        await inSpan(`${queue} handle ${type}`, () => handle(event, log), message.properties.headers);
        metrics.handled(queue, type, 'consumed', took());
        settle(() => channel.ack(message));
        metrics.consumed(type);
        return;
      } catch (err) {
        metrics.handled(queue, type, 'failed', took());
        metrics.consumeFailed(type);
        if (isTransient(err) || !(await gate.ready())) {
          log.warn(
            { err, queue },
            'event handler met an unavailable dependency: held until it is back, not counted as an attempt',
          );
          await gate.recovered();
          // A dependency that answers readiness but still fails (another service's look-up): back off.
          await sleep(heldBackoffMs(held + 1));
          continue;
        }
        const failedAttempts = failedAttemptsOf(message) + 1;
        const last = isLastAttempt(failedAttempts, policy);
        log.error(
          { err, queue, attempt: failedAttempts, maxAttempts: policy.maxAttempts },
          last ? 'event handler failed for the last time: dead-lettered' : 'event handler failed: will retry later',
        );
        if (last) {
          metrics.deadLettered(type);
          const reason = `failed ${failedAttempts} attempts: ${reasonOf(err)}`;
          await deadLetter(parking, channel, message, failedAttempts, reason, log);
        } else await retryLater(parking, channel, message, failedAttempts, log);
        return;
      }
    }
  }
}
