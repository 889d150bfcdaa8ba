import { amqpUrl, brokerAdmin, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broker } from '../src/index.js';
import { logger, userEvent } from './support.js';

/** An event published before its consumer ever started reaches it: the publisher declared its queue. */
describe('Broker: publishing before the consumers exist', () => {
  const exchange = uniqueName('messaging.pub');
  const declared = `${exchange}.declared`;
  const undeclared = `${exchange}.undeclared`;
  let broker: Broker;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-publisher-test' });
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    try {
      await broker?.close();
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [declared, undeclared] });
    }
  });

  it('keeps what it publishes for the consumers it declared, and the broker drops it for the others', async () => {
    const publisher = broker.createPublisher({ consumers: [{ queue: declared, bindings: ['user.created'] }] });
    const event = userEvent();
    await publisher.publish(event);
    expect(await admin.messageCount(declared)).toBe(1);

    // Both consumers start only now, with the same queue arguments the publisher declared.
    const received: Record<string, string[]> = { [declared]: [], [undeclared]: [] };
    for (const queue of [declared, undeclared]) {
      await broker.consume({
        queue,
        bindings: ['user.created', 'user.updated'],
        maxAttempts: 1,
        handle: async (delivered) => {
          received[queue]!.push(delivered.id);
        },
      });
    }
    await eventually(async () => (received[declared]!.length === 1 ? true : undefined));
    expect(received[declared]).toEqual([event.id]);

    // The barrier: an event published now reaches both, so the first one would have arrived by then.
    const later = userEvent();
    await publisher.publish(later);
    await eventually(async () => (received[undeclared]!.length === 1 ? true : undefined));
    expect(received[undeclared]).toEqual([later.id]);
    await eventually(async () => (received[declared]!.length === 2 ? true : undefined));
  });
});
