import { amqpUrl, brokerAdmin, eventually, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broker } from '../src/index.js';
import { logger, sleep, userEvent } from './support.js';

describe('Broker: dead-lettering', () => {
  const exchange = uniqueName('messaging.dl');
  const queues = [uniqueName('messaging.failing'), uniqueName('messaging.malformed'), uniqueName('messaging.once')];
  let broker: Broker;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-dl-test' });
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    await broker.close();
    await admin.deleteTopology(exchange, queues);
    await admin.close();
  });

  const readDeadLetter = (queue: string) => eventually(async () => (await admin.channel.get(`${queue}.dlq`, { noAck: true })) || undefined);

  it('moves a message whose handler keeps failing to the DLQ after exactly maxAttempts deliveries', async () => {
    const queue = queues[0]!;
    let calls = 0;
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 3,
      handle: async () => {
        calls += 1;
        throw new Error('handler always fails');
      },
    });
    const event = userEvent();
    await broker.createPublisher().publish(event);

    const dead = await readDeadLetter(queue);
    expect(dead.properties.messageId).toBe(event.id);
    expect(JSON.parse(dead.content.toString())).toEqual(event);
    expect(dead.properties.headers?.['x-first-death-queue']).toBe(queue);
    await sleep(300); // nothing is redelivered afterwards
    expect(calls).toBe(3);
    expect((await admin.channel.checkQueue(queue)).messageCount).toBe(0);
  });

  it('dead-letters malformed messages at once, without calling the handler, and goes on consuming', async () => {
    const queue = queues[1]!;
    const handled: string[] = [];
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 3,
      handle: async (event) => {
        handled.push(event.id);
      },
    });
    const send = (content: string, messageId: string) =>
      admin.channel.publish(exchange, 'user.created', Buffer.from(content), { messageId, contentType: 'application/json' });
    send('not json {', 'not-json');
    send(JSON.stringify({ ...userEvent(), id: 'not-a-uuid' }), 'bad-envelope');
    const good = userEvent();
    await broker.createPublisher().publish(good);

    const dead = [await readDeadLetter(queue), await readDeadLetter(queue)];
    expect(dead.map((message) => message.properties.messageId).sort()).toEqual(['bad-envelope', 'not-json']);
    for (const message of dead) expect(message.properties.headers?.['x-first-death-reason']).toBe('rejected');
    await eventually(async () => handled.length > 0 || undefined);
    expect(handled).toEqual([good.id]);
  });

  it('with maxAttempts 1, dead-letters after the first failure', async () => {
    const queue = queues[2]!;
    let calls = 0;
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 1,
      handle: async () => {
        calls += 1;
        throw new Error('fails');
      },
    });
    const event = userEvent();
    await broker.createPublisher().publish(event);
    expect((await readDeadLetter(queue)).properties.messageId).toBe(event.id);
    expect(calls).toBe(1);
  });
});
