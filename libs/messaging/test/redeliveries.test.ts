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
import { Broker, CRASH_LOOP_DELIVERY_LIMIT } from '../src/index.js';
import { logger, userEvent } from './support.js';

/**
 * RabbitMQ counts each return of a message towards the queue's delivery limit, a lost connection's too: an
 * event held while its dependency is away, through more lost connections than the limit, is still handled
 * once the dependency is back, and never dead-lettered.
 */
describe('Broker: an event held through lost connections', () => {
  const exchange = uniqueName('messaging.redeliveries');
  const queue = uniqueName('messaging.held-through-drops');
  let proxy: TcpProxy;
  let broker: Broker;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    proxy = await createTcpProxy(amqpUrl());
    broker = new Broker({
      url: proxy.url,
      exchange,
      logger,
      name: 'messaging-redeliveries-test',
      reconnectDelayMs: 50,
    });
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    try {
      await broker?.close();
      await proxy?.close();
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue] });
    }
  });

  it('is handled once its dependency is back, after more lost connections than the delivery limit', async () => {
    let dependencyUp = false;
    const handled: string[] = [];
    const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 1,
      retryDelaysMs: [50],
      isTransient: (error) => (error as { code?: unknown }).code === 'ECONNREFUSED',
      handle: async (event) => {
        if (!dependencyUp) throw unavailable();
        handled.push(event.id);
      },
    });
    const event = userEvent();
    // Published beside the proxy, so that only the consumer's connection is lost.
    admin.channel.publish(exchange, 'user.created', Buffer.from(JSON.stringify(event)), {
      messageId: event.id,
      contentType: 'application/json',
      persistent: true,
    });
    const held = async () =>
      (await admin.consumerCount(queue)) === 1 && (await admin.messageCount(queue)) === 0 ? true : undefined;
    for (let lost = 1; lost <= CRASH_LOOP_DELIVERY_LIMIT + 5; lost += 1) {
      // The barrier: the event is out to the consumer (none ready in the queue), held by its handler.
      await eventually(held, 10_000);
      proxy.cut();
      await eventually(async () => ((await admin.consumerCount(queue)) === 0 ? true : undefined), 10_000);
      proxy.restore();
    }
    await eventually(held, 10_000);
    expect(await admin.messageCount(`${queue}.dlq`)).toBe(0);
    dependencyUp = true;
    await eventually(async () => (handled.length > 0 ? true : undefined), 15_000);
    // At least once: a copy put back whose original's ack was lost to the next drop comes twice, as any event may.
    expect(new Set(handled)).toEqual(new Set([event.id]));
    await eventually(async () => ((await admin.messageCount(queue)) === 0 ? true : undefined));
    expect(await admin.messageCount(`${queue}.dlq`)).toBe(0);
  }, 120_000);
});
