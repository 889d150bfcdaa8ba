import type { Channel } from 'amqplib';

/**
 * Names and declarations of the queues a consumer reads and the broker routes through. The consumer
 * declares them, and so do the producers of what it consumes (see `Publisher`): a queue declared only
 * when its consumer first starts would let the broker drop, though confirmed, every event published
 * before. Every declarer must use the same arguments, or the broker refuses the second one (406).
 */

/**
 * Redeliveries of one message copy before the broker dead-letters it on its own. Not the retry budget
 * of a failing handler (that is the consumer's `maxAttempts`, counted in a header of ours, with a delay
 * queue between attempts): only a backstop for a message that crashes its consumer every time. High,
 * because a lost connection or a killed instance also redelivers the messages it held, and a passing
 * fault must never dead-letter an event.
 */
export const CRASH_LOOP_DELIVERY_LIMIT = 20;
/**
 * RabbitMQ (3.x) counts every return towards that limit, a lost connection's too: a message held through
 * ten of them (its handler waiting for a dependency while the broker restarts, drops connections, an
 * instance is killed) is put back as a new copy, its count carried in a header, before the broker's
 * limit could dead-letter it for a passing fault.
 */
export const PUT_BACK_AFTER_DELIVERIES = 10;
/** Redeliveries across copies after which a message is taken for one whose handling crashes its consumer. */
export const CRASH_LOOP_REDELIVERIES = 100;

/** Where failed events of every queue of `exchange` go: a direct exchange keyed by the queue's name. */
export const deadLetterExchangeOf = (exchange: string) => `${exchange}.dlx`;
export const deadLetterQueueOf = (queue: string) => `${queue}.dlq`;
/** The delay queue a message waits in before attempt `level + 1`; expired, it goes back to `queue`. */
export const retryQueueOf = (queue: string, level: number) => `${queue}.retry.${level}`;

/** The events exchange, a consumer's quorum queue with its dead-letter queue, and the queue's bindings. */
export async function declareConsumerQueue(
  channel: Channel,
  exchange: string,
  queue: string,
  bindings: readonly string[],
): Promise<void> {
  const deadLetterExchange = deadLetterExchangeOf(exchange);
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertExchange(deadLetterExchange, 'direct', { durable: true });
  await channel.assertQueue(deadLetterQueueOf(queue), { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(deadLetterQueueOf(queue), deadLetterExchange, queue);
  await channel.assertQueue(queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': CRASH_LOOP_DELIVERY_LIMIT,
      'x-dead-letter-exchange': deadLetterExchange,
      'x-dead-letter-routing-key': queue,
    },
  });
  for (const type of bindings) await channel.bindQueue(queue, exchange, type);
}

/**
 * One delay queue per retry level, so that all messages of a queue wait equally long and none expires
 * behind a longer-waiting one (RabbitMQ expires messages only at the head of a queue). Each message
 * carries its delay as its expiration; expired, it is dead-lettered through the default exchange
 * straight back to `queue`, and to no other consumer of its type.
 */
export async function declareRetryQueues(channel: Channel, queue: string, levels: number): Promise<void> {
  for (let level = 1; level <= levels; level += 1) {
    await channel.assertQueue(retryQueueOf(queue, level), {
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queue },
    });
  }
}
