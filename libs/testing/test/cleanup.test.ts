import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  amqpUrl,
  brokerAdmin,
  exchangeFamily,
  queueFamily,
  removeExchangeFamily,
  serviceNames,
  uniqueName,
} from '../src/index.js';

describe('exchangeFamily', () => {
  it('names the exchange, its dead-letter exchange, and each queue with its dead letters and retry queues', () => {
    expect(serviceNames).toEqual(
      expect.arrayContaining(['collections', 'comments', 'content', 'notifications', 'users']),
    );
    expect(queueFamily('q')).toEqual(['q', 'q.dlq', 'q.retry.1', 'q.retry.2', 'q.retry.3', 'q.retry.4']);
    const { exchanges, queues } = exchangeFamily('x', { queues: ['mine'], services: ['directory'] });
    expect(exchanges).toEqual(['x', 'x.dlx']);
    expect(queues).toEqual(
      expect.arrayContaining([...queueFamily('x.users'), ...queueFamily('x.directory'), ...queueFamily('mine')]),
    );
  });
});

describe('removeExchangeFamily', () => {
  const exchange = uniqueName('testing.cleanup');
  const own = uniqueName('testing.cleanup');
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    try {
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [own] });
    }
  });

  const exists = async (queue: string) => (await admin.messageCount(queue)) !== undefined;

  it('deletes what exists of the family and ignores what does not', async () => {
    const { channel } = admin;
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertExchange(`${exchange}.dlx`, 'direct', { durable: true });
    const declared = [
      `${exchange}.notifications`,
      `${exchange}.notifications.dlq`,
      `${exchange}.users.retry.4`,
      own,
      `${own}.retry.1`,
    ];
    for (const queue of declared) await channel.assertQueue(queue, { durable: true });

    await removeExchangeFamily(amqpUrl(), exchange, { queues: [own] });
    for (const queue of declared) expect(await exists(queue), queue).toBe(false);
    // The exchanges are gone too: checking one fails, and takes a channel of its own down with it.
    const probe = await admin.connection.createChannel();
    probe.on('error', () => undefined);
    await expect(probe.checkExchange(exchange)).rejects.toThrow(/NOT_FOUND/);

    // All of it missing now: nothing to fail on.
    await removeExchangeFamily(admin.connection, exchange, { queues: [own] });
  });
});
