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
 * Parks a copy of `message` in its delay queue, and acks the original once the broker confirmed the copy;
 * when it cannot, requeues the original at once.
 */
export async function retryLater(
  { retries, queue, policy, settle }: Parking,
  channel: Channel,
  message: ConsumeMessage,
  failedAttempts: number,
  log: Logger,
): Promise<void> {
  try {
    await retries.sendToQueue(
      retryQueueOf(queue, retryLevel(failedAttempts, policy)),
      message.content,
      retryCopyOptions(message, failedAttempts, policy),
    );
    settle(() => channel.ack(message));
  } catch (err) {
    // Not parked for later: back to the queue at once, counted by the broker's backstop only.
    log.warn({ err, queue }, 'could not park the event for its next attempt: requeued');
    settle(() => channel.nack(message, false, true));
  }
}

/**
 * Sends `message` to the dead-letter queue with `reason` in a header, and acks the original once the broker
 * confirmed the copy. When it cannot, the broker dead-letters the original itself (its `x-death` then tells
 * the queue, without the reason).
 */
export async function deadLetter(
  { retries, queue, deadLetterExchange, settle }: Parking,
  channel: Channel,
  message: ConsumeMessage,
  failedAttempts: number,
  reason: string,
  log: Logger,
): Promise<void> {
  try {
    await retries.publish(
      deadLetterExchange,
      queue,
      message.content,
      copyOptions(message, failedAttempts, { [DEAD_LETTER_REASON_HEADER]: reason }),
    );
    settle(() => channel.ack(message));
  } catch (err) {
    log.warn({ err, queue }, 'could not send the event to the dead-letter queue with its reason: rejected instead');
    settle(() => channel.nack(message, false, false));
  }
}

/**
 * Puts `message` back at the end of its queue as a new copy, its redeliveries so far in a header (see
 * PUT_BACK_AFTER_DELIVERIES), and acks the original once the broker confirmed the copy; when it cannot,
 * requeues the original.
 */
export async function putBack(
  { retries, queue, settle }: Parking,
  channel: Channel,
  message: ConsumeMessage,
  log: Logger,
): Promise<void> {
  try {
    await retries.sendToQueue(queue, message.content, copyOptions(message, failedAttemptsOf(message)));
    settle(() => channel.ack(message));
  } catch (err) {
    log.warn({ err, queue }, 'could not put the event back as a new copy: requeued');
    settle(() => channel.nack(message, false, true));
  }
}
