import amqp, { type ConfirmChannel } from 'amqplib';
import { removeExchangeFamily } from './cleanup.js';

/** What `publish` needs of an event envelope (see @recipes/contracts). */
interface PublishableEvent {
  id: string;
  type: string;
}

/** A plain amqplib connection straight to the broker, for looking at queues behind the library's back. */
export async function brokerAdmin(url: string) {
  const connection = await amqp.connect(url);
  const channel = await connection.createChannel();
  let confirmChannel: ConfirmChannel | undefined;
  const declaredExchanges = new Set<string>();

  /**
   * `queue`'s counts, or undefined when it does not exist (a failed check closes its channel, so a channel of its own).
   */
  async function check(queue: string): Promise<amqp.Replies.AssertQueue | undefined> {
    const probe = await connection.createChannel();
    probe.on('error', () => undefined);
    try {
      return await probe.checkQueue(queue);
    } catch {
      return undefined;
    } finally {
      await probe.close().catch(() => undefined);
    }
  }

  return {
    connection,
    channel,
    /** Consumers on `queue`, or undefined when it does not exist. */
    consumerCount: async (queue: string): Promise<number | undefined> => (await check(queue))?.consumerCount,
    /** Messages ready in `queue` (not those delivered and unacknowledged), or undefined when it does not exist. */
    messageCount: async (queue: string): Promise<number | undefined> => (await check(queue))?.messageCount,
    /**
     * Publishes `events` to the topic exchange as an outbox relay does (persistent JSON, the event's type
     * as routing key, its id as message id) and resolves once the broker has confirmed them all.
     */
    async publish(exchange: string, events: readonly PublishableEvent[]): Promise<void> {
      confirmChannel ??= await connection.createConfirmChannel();
      if (!declaredExchanges.has(exchange)) {
        await confirmChannel.assertExchange(exchange, 'topic', { durable: true });
        declaredExchanges.add(exchange);
      }
      for (const event of events) {
        confirmChannel.publish(exchange, event.type, Buffer.from(JSON.stringify(event)), {
          persistent: true,
          contentType: 'application/json',
          messageId: event.id,
          type: event.type,
        });
      }
      await confirmChannel.waitForConfirms();
    },
    /**
     * Removes the exchange's family (see `removeExchangeFamily`) and `queues` with theirs, ignoring what is already
     * gone.
     */
    deleteTopology: (exchange: string, queues: readonly string[] = []) =>
      removeExchangeFamily(connection, exchange, { queues }),
    close: () => connection.close(),
  };
}
