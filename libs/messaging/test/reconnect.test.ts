import {
  amqpUrl,
  brokerAdmin,
  createTcpProxy,
  eventually,
  removeExchangeFamily,
  type TcpProxy,
  uniqueName,
} from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broker, type Consumer, type Publisher } from '../src/index.js';
import { logger, userEvent } from './support.js';

describe('Broker: reconnect', () => {
  const exchange = uniqueName('messaging.reconnect');
  const queue = uniqueName('messaging.reconnect');
  const received: string[] = [];
  let proxy: TcpProxy;
  let broker: Broker;
  let consumer: Consumer;
  let publisher: Publisher;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    proxy = await createTcpProxy(amqpUrl());
    admin = await brokerAdmin(amqpUrl()); // straight to the broker, not through the proxy
    broker = new Broker({ url: proxy.url, exchange, logger, name: 'messaging-reconnect-test', reconnectDelayMs: 200 });
    consumer = await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 3,
      handle: async (event) => {
        received.push(event.id);
      },
    });
    publisher = broker.createPublisher();
  });
  afterAll(async () => {
    try {
      await consumer?.close();
      await broker?.close();
      await proxy?.close();
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue] });
    }
  });

  /** Publishes once the consumer is back on its queue (publishing earlier would find no queue to route to). */
  async function publishWhenConsuming(): Promise<string> {
    await eventually(async () => ((await admin.consumerCount(queue)) ?? 0) > 0 || undefined);
    const event = userEvent();
    await publisher.publish(event, { timeoutMs: 2_000 });
    return event.id;
  }

  it('comes back after losing the connection, with its exchange, queues and bindings declared again', async () => {
    const before = await publishWhenConsuming();
    await eventually(async () => received.includes(before) || undefined);

    proxy.cut();
    await eventually(async () => !broker.isConnected() || undefined);
    // While it is away, its topology disappears: only the setup after reconnecting can bring it back.
    await admin.deleteTopology(exchange, [queue]);
    await expect(publisher.publish(userEvent(), { timeoutMs: 300 })).rejects.toThrow(/not confirmed/);

    proxy.restore();
    await eventually(async () => broker.isConnected() || undefined);
    const after = await publishWhenConsuming();
    await eventually(async () => received.includes(after) || undefined);
    expect(received.filter((id) => id === before || id === after)).toEqual([before, after]);
  });

  it('recovers a consumer whose queue was deleted under it while the connection stayed up', async () => {
    await eventually(async () => ((await admin.consumerCount(queue)) ?? 0) > 0 || undefined);
    await admin.channel.deleteQueue(queue);
    const id = await publishWhenConsuming();
    await eventually(async () => received.includes(id) || undefined);
  });
});
