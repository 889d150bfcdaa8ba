import { amqpUrl, brokerAdmin, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { Broker } from '../src/index.js';
import { logger, userEvent } from './support.js';

/**
 * A channel the broker closes while it is being declared on (here: a queue declaration it refuses) is
 * left dead by amqp-connection-manager while the connection stays up, so every publish on it would time
 * out for as long as the process lives. The broker heals it by reconnecting.
 */
describe('Broker: a channel closed while it declares its topology', () => {
  const exchange = uniqueName('messaging.healing');
  const queue = uniqueName('messaging.healing');
  let broker: Broker | undefined;

  afterAll(async () => {
    await broker?.close();
    await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue] });
  });

  it('is declared again once what refused it is gone, and publishing goes on', async () => {
    const admin = await brokerAdmin(amqpUrl());
    try {
      // The consumer's queue exists already with other arguments: its declaration is refused (406), which closes the
      // channel.
      await admin.channel.assertQueue(queue, { durable: false });
      broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-healing-test', reconnectDelayMs: 200 });
      const publisher = broker.createPublisher({ consumers: [{ queue, bindings: ['user.created'] }], timeoutMs: 500 });
      await expect(publisher.publish(userEvent())).rejects.toThrow(/not confirmed/);
      await admin.channel.deleteQueue(queue);

      const deadline = Date.now() + 10_000;
      let published = false;
      while (!published) {
        expect(Date.now(), 'published again within 10 s').toBeLessThan(deadline);
        published = await publisher.publish(userEvent(), { timeoutMs: 500 }).then(
          () => true,
          () => false,
        );
      }
      expect((await admin.channel.checkQueue(queue)).messageCount).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.close();
    }
  });
});
