import amqp, { type ConfirmChannel, type GetMessage } from 'amqplib';
import {
  ATTEMPTS_HEADER,
  DEAD_LETTER_REASON_HEADER,
  ORIGINAL_ROUTING_KEY_HEADER,
  REDELIVERIES_HEADER,
} from './consumer.js';

export interface ReplaySettings {
  url: string;
  /** The events exchange (EVENTS_EXCHANGE); a service's queue is `${exchange}.${service}`. */
  exchange: string;
  /** The service's queue, whose dead letters wait in `${queue}.dlq`. */
  queue: string;
  /** Replay at most this many; by default every message the DLQ holds when the replay starts. */
  limit?: number;
}

export interface ReplayResult {
  /** Messages moved back to the service's queue. */
  replayed: number;
  /** Messages the DLQ still holds afterwards (those past the limit, or dead-lettered again meanwhile). */
  remaining: number;
}

/**
 * Counts of earlier attempts (the broker's and the consumer's) and why they ended; copied over, the replayed event
 * would start with them.
 */
const ATTEMPT_HEADERS = ['x-delivery-count', ATTEMPTS_HEADER, REDELIVERIES_HEADER, DEAD_LETTER_REASON_HEADER];

/**
 * The routing key the event was first published with (its type): as the consumer noted it when the
 * event went through a delay queue, else from the newest `x-death` entry.
 */
export function originalRoutingKey(message: Pick<GetMessage, 'properties' | 'fields'>): string {
  const noted = message.properties.headers?.[ORIGINAL_ROUTING_KEY_HEADER];
  if (typeof noted === 'string') return noted;
  const deaths = message.properties.headers?.['x-death'] as Array<{ 'routing-keys'?: string[] }> | undefined;
  return deaths?.[0]?.['routing-keys']?.[0] ?? message.fields.routingKey;
}

/** The message's own properties and headers, as the consumer first received it. */
function republishOptions(message: GetMessage): amqp.Options.Publish {
  const { properties } = message;
  const headers = Object.fromEntries(
    Object.entries(properties.headers ?? {}).filter(([name]) => !ATTEMPT_HEADERS.includes(name)),
  );
  return {
    persistent: true,
    mandatory: true,
    contentType: properties.contentType,
    contentEncoding: properties.contentEncoding,
    messageId: properties.messageId,
    correlationId: properties.correlationId,
    type: properties.type ?? originalRoutingKey(message),
    timestamp: properties.timestamp,
    appId: properties.appId,
    headers: {
      ...headers,
      'x-replayed-from': message.fields.routingKey,
      [ORIGINAL_ROUTING_KEY_HEADER]: originalRoutingKey(message),
    },
  };
}

/** Publishes through the default exchange straight to `queue`, resolving once the broker confirmed it. */
function publishConfirmed(channel: ConfirmChannel, queue: string, message: GetMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    channel.publish('', queue, message.content, republishOptions(message), (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

/**
 * Moves a service's dead letters back to its own queue, after the cause of their failure was fixed. Each
 * message goes through the default exchange to that queue only (republishing on the topic exchange would
 * hand it to every other consumer of its type again), keeps its properties and headers (the `x-death`
 * history tells its original routing key), and is acked in the DLQ only once the broker has confirmed
 * the copy: a crash in between leaves a duplicate, which the consumers' inbox ignores, never a loss.
 */
export async function replayDeadLetters({ url, exchange, queue, limit }: ReplaySettings): Promise<ReplayResult> {
  if (!queue.startsWith(`${exchange}.`)) throw new Error(`queue ${queue} is not a queue of the exchange ${exchange}`);
  const deadLetters = `${queue}.dlq`;
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createConfirmChannel();
    // A refused operation rejects its own promise; the channel's 'error' event repeats it, and unheard would crash.
    connection.on('error', () => undefined);
    channel.on('error', () => undefined);
    // A copy the queue did not take is still confirmed, after being returned: one at a time, a return
    // seen before the confirm belongs to the message in flight.
    let returned = false;
    channel.on('return', () => {
      returned = true;
    });
    await channel.checkQueue(queue); // fails at once, naming the queue, when the service never declared it
    const { messageCount } = await channel.checkQueue(deadLetters);
    // Only what waited when the replay began: a message that fails again comes back, and is not replayed twice.
    const wanted = Math.min(limit ?? Number.POSITIVE_INFINITY, messageCount);
    let replayed = 0;
    while (replayed < wanted) {
      const message = await channel.get(deadLetters, { noAck: false });
      if (!message) break;
      returned = false;
      try {
        await publishConfirmed(channel, queue, message);
        if (returned)
          throw new Error(`queue ${queue} did not take message ${message.properties.messageId ?? '(no id)'}`);
      } catch (error) {
        channel.nack(message, false, true); // back to the DLQ, untouched
        throw error;
      }
      channel.ack(message);
      replayed += 1;
    }
    const { messageCount: remaining } = await channel.checkQueue(deadLetters);
    await channel.close();
    return { replayed, remaining };
  } finally {
    await connection.close().catch(() => undefined);
  }
}
