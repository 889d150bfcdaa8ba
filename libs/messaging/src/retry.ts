import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage, Options } from 'amqplib';
import type { Logger } from '@recipes/logging';
import {
  ATTEMPTS_HEADER,
  DEAD_LETTER_REASON_HEADER,
  failedAttemptsOf,
  headersOf,
  ORIGINAL_ROUTING_KEY_HEADER,
  REDELIVERIES_HEADER,
  redeliveriesOf,
  typeOf,
} from './message.js';
import { retryQueueOf } from './topology.js';

/**
 * What becomes of an event whose handler failed through its own fault (not an unavailable dependency):
 * another attempt after a delay, in the delay queue of its level, or the dead-letter queue once
 * `maxAttempts` attempts have failed.
 */

export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];
const RETRY_PUBLISH_TIMEOUT_MS = 10_000;

export interface RetryPolicy {
  maxAttempts: number;
  retryDelaysMs: readonly number[];
}

/** Refuses a policy that could never dead-letter or never wait. */
export function checkRetryPolicy({ maxAttempts, retryDelaysMs }: RetryPolicy): void {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new Error(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  if (retryDelaysMs.length === 0) throw new Error('retryDelaysMs needs at least one delay');
}

/** After `failedAttempts` failures (this one included): dead-letter it, or try again later. */
export function isLastAttempt(failedAttempts: number, { maxAttempts }: RetryPolicy): boolean {
  return failedAttempts >= maxAttempts;
}

/** The delay queue level after `failedAttempts` failures: the last delay repeats. */
export function retryLevel(failedAttempts: number, { retryDelaysMs }: RetryPolicy): number {
  return Math.min(failedAttempts, retryDelaysMs.length);
}

/** A copy's properties: the original's, its headers with our counts, `extra` headers added. */
function copyOptions(
  message: ConsumeMessage,
  failedAttempts: number,
  extra: Record<string, unknown> = {},
): Options.Publish & { timeout: number } {
  const { properties } = message;
  // The broker's count of deliveries belongs to this copy: the next carries it in a header of ours.
  const { 'x-delivery-count': _deliveries, ...kept } = headersOf(message);
  const headers = {
    ...kept,
    [ATTEMPTS_HEADER]: failedAttempts,
    [ORIGINAL_ROUTING_KEY_HEADER]: typeOf(message),
    [REDELIVERIES_HEADER]: redeliveriesOf(message),
    ...extra,
  };
  return {
    persistent: true,
    contentType: properties.contentType,
    messageId: properties.messageId,
    correlationId: properties.correlationId,
    type: properties.type,
    timestamp: properties.timestamp,
    headers,
    timeout: RETRY_PUBLISH_TIMEOUT_MS,
  };
}

/** How the copy for the next attempt is published: the original's properties, our counts, its delay as expiration. */
export function retryCopyOptions(
  message: ConsumeMessage,
  failedAttempts: number,
  policy: RetryPolicy,
): Options.Publish & { timeout: number } {
  return {
    ...copyOptions(message, failedAttempts),
    expiration: String(policy.retryDelaysMs[retryLevel(failedAttempts, policy) - 1]),
  };
}

export interface Parking {
  /** The confirm channel the copies are published on. */
  retries: ChannelWrapper;
  queue: string;
  /** Where the queue's dead letters go, keyed by the queue's name (as the broker dead-letters them). */
  deadLetterExchange: string;
  policy: RetryPolicy;
  /** Acks or nacks, tolerating a channel that closed meanwhile. */
  settle(action: () => void): void;
}

/**
 * Replaces `message` by the copy `publish` sends: acks the original once the broker confirmed the copy; when it
 * cannot, settles it as `otherwise` says (requeued, or rejected to the broker's own dead-lettering) and says so.
 */
async function replaceWithCopy(
  { queue, settle }: Parking,
  channel: Channel,
  message: ConsumeMessage,
  publish: () => Promise<unknown>,
  otherwise: { requeue: boolean; warning: string },
  log: Logger,
): Promise<void> {
  try {
    await publish();
    settle(() => channel.ack(message));
  } catch (err) {
    log.warn({ err, queue }, otherwise.warning);
    settle(() => channel.nack(message, false, otherwise.requeue));
  }
}

/**
 * Parks a copy of `message` in its delay queue; when it cannot, requeues the original at once (counted by the
 * broker's backstop only).
 */
export function retryLater(
  parking: Parking,
  channel: Channel,
  message: ConsumeMessage,
  failedAttempts: number,
  log: Logger,
): Promise<void> {
  const { retries, queue, policy } = parking;
  const copy = () =>
    retries.sendToQueue(
      retryQueueOf(queue, retryLevel(failedAttempts, policy)),
      message.content,
      retryCopyOptions(message, failedAttempts, policy),
    );
  const otherwise = { requeue: true, warning: 'could not park the event for its next attempt: requeued' };
  return replaceWithCopy(parking, channel, message, copy, otherwise, log);
}

/**
 * Sends `message` to the dead-letter queue with `reason` in a header. When it cannot, the broker dead-letters the
 * original itself (its `x-death` then tells the queue, without the reason).
 */
export function deadLetter(
  parking: Parking,
  channel: Channel,
  message: ConsumeMessage,
  failedAttempts: number,
  reason: string,
  log: Logger,
): Promise<void> {
  const { retries, queue, deadLetterExchange } = parking;
  const options = copyOptions(message, failedAttempts, { [DEAD_LETTER_REASON_HEADER]: reason });
  const copy = () => retries.publish(deadLetterExchange, queue, message.content, options);
  const otherwise = {
    requeue: false,
    warning: 'could not send the event to the dead-letter queue with its reason: rejected instead',
  };
  return replaceWithCopy(parking, channel, message, copy, otherwise, log);
}

/**
 * Puts `message` back at the end of its queue as a new copy, its redeliveries so far in a header (see
 * PUT_BACK_AFTER_DELIVERIES); when it cannot, requeues the original.
 */
export function putBack(parking: Parking, channel: Channel, message: ConsumeMessage, log: Logger): Promise<void> {
  const { retries, queue } = parking;
  const copy = () => retries.sendToQueue(queue, message.content, copyOptions(message, failedAttemptsOf(message)));
  const otherwise = { requeue: true, warning: 'could not put the event back as a new copy: requeued' };
  return replaceWithCopy(parking, channel, message, copy, otherwise, log);
}
