import type { ConsumeMessage } from 'amqplib';
import { eventEnvelopeSchema, type EventEnvelope } from '@recipes/contracts';

/** What a delivered message says about itself: its event, its type, and how often it has failed so far. */

/** Our count of failed attempts, carried from one copy of a message to the next through the delay queues. */
export const ATTEMPTS_HEADER = 'x-attempts';
/** The event's type, which a copy coming back from a delay queue no longer has as its routing key. */
export const ORIGINAL_ROUTING_KEY_HEADER = 'x-original-routing-key';
/** Redeliveries of the earlier copies of a message put back as new (see `putBack`), the broker's count of them. */
export const REDELIVERIES_HEADER = 'x-redeliveries';
/** Why the consumer dead-lettered a message: its last error, or what else made it one that can never be handled. */
export const DEAD_LETTER_REASON_HEADER = 'x-dead-letter-reason';

/** The event the message carries; undefined when it is not a valid envelope (malformed JSON included). */
export function parseEnvelope(content: Buffer): EventEnvelope | undefined {
  try {
    const parsed = eventEnvelopeSchema.safeParse(JSON.parse(content.toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function headersOf(message: ConsumeMessage): Record<string, unknown> {
  return (message.properties.headers ?? {}) as Record<string, unknown>;
}

/** The event's type as first routed, also for a copy back from a delay queue. */
export function typeOf(message: ConsumeMessage): string {
  const original = headersOf(message)[ORIGINAL_ROUTING_KEY_HEADER];
  return typeof original === 'string' ? original : message.fields.routingKey;
}

/** The count in header `name` (0 where there is none, or a value that is not a count). */
function countIn(message: ConsumeMessage, name: string): number {
  const value = headersOf(message)[name];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/** Failed attempts before this copy (0 for the first delivery, or a header that is not a count). */
export const failedAttemptsOf = (message: ConsumeMessage): number => countIn(message, ATTEMPTS_HEADER);

/** The broker's count of earlier deliveries of this copy (a quorum queue's `x-delivery-count`). */
export const deliveriesOf = (message: ConsumeMessage): number => countIn(message, 'x-delivery-count');

/** How often this message has been redelivered, its earlier copies' redeliveries included. */
export const redeliveriesOf = (message: ConsumeMessage): number =>
  countIn(message, REDELIVERIES_HEADER) + deliveriesOf(message);
