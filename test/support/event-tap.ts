import amqp, { type ChannelModel } from 'amqplib';
import type { SeenEvent } from './conformance.js';

const RECONNECT_MS = 500;

/**
 * A queue of its own on the system's topic exchange, bound to every routing key: it sees each event the
 * services publish (and a test publishes) while it is connected, and hands it to `onEvent`. The queue is
 * exclusive, so the broker removes it with the connection; when the broker goes away (a fault test stops
 * it), the tap connects again once it is back, and misses what was published meanwhile.
 */
export async function eventTap(
  url: string,
  exchange: string,
  onEvent: (event: SeenEvent) => void,
): Promise<{ close(): Promise<void> }> {
  let connection: ChannelModel | undefined;
  let closing = false;
  let retry: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const opened = await amqp.connect(url);
    opened.on('error', () => undefined);
    try {
      const channel = await opened.createChannel();
      channel.on('error', () => undefined);
      // As the services declare it, so that the tap may come first.
      await channel.assertExchange(exchange, 'topic', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
      await channel.bindQueue(queue, exchange, '#');
      await channel.consume(
        queue,
        (message) =>
          message && onEvent({ routingKey: message.fields.routingKey, content: message.content.toString('utf8') }),
        { noAck: true },
      );
    } catch (error) {
      await opened.close().catch(() => undefined);
      throw error;
    }
    opened.on('close', () => {
      connection = undefined;
      if (!closing) retry = setTimeout(reconnect, RECONNECT_MS);
    });
    connection = opened;
  }

  function reconnect(): void {
    if (closing) return;
    connect().catch(() => {
      if (!closing) retry = setTimeout(reconnect, RECONNECT_MS);
    });
  }

  await connect();
  return {
    async close() {
      closing = true;
      clearTimeout(retry);
      await connection?.close().catch(() => undefined);
    },
  };
}
