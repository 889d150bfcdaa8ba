import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Channel, ConsumeMessage, Options } from 'amqplib';
import type { Logger } from '@recipes/logging';
import { ATTEMPTS_HEADER, headersOf, ORIGINAL_ROUTING_KEY_HEADER, typeOf } from './message.js';
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

/** How the copy for the next attempt is published: the original's properties, our counts, its delay as expiration. */
export function retryCopyOptions(
  message: ConsumeMessage,
  failedAttempts: number,
  policy: RetryPolicy,
): Options.Publish & { timeout: number } {
  const { properties } = message;
  // The broker's count of deliveries belongs to this copy, not to the next.
  const { 'x-delivery-count': _deliveries, ...kept } = headersOf(message);
  const headers = { ...kept, [ATTEMPTS_HEADER]: failedAttempts, [ORIGINAL_ROUTING_KEY_HEADER]: typeOf(message) };
  return {
    persistent: true,
    contentType: properties.contentType,
    messageId: properties.messageId,
    correlationId: properties.correlationId,
    type: properties.type,
    timestamp: properties.timestamp,
    headers,
    expiration: String(policy.retryDelaysMs[retryLevel(failedAttempts, policy) - 1]),
    timeout: RETRY_PUBLISH_TIMEOUT_MS,
  };
}

export interface Parking {
  /** The confirm channel the copies are published on. */
  retries: ChannelWrapper;
  queue: string;
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
