import { amqpUrl, brokerAdmin, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broker, DEAD_LETTER_REASON_HEADER, originalRoutingKey } from '../src/index.js';
import { logger, sleep, userEvent } from './support.js';

describe('Broker: dead-lettering', () => {
  const exchange = uniqueName('messaging.dl');
  const queues = [
    uniqueName('messaging.failing'),
    uniqueName('messaging.malformed'),
    uniqueName('messaging.once'),
    uniqueName('messaging.held'),
  ];
  let broker: Broker;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-dl-test' });
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    try {
      await broker?.close();
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues });
    }
  });

  const readDeadLetter = (queue: string) =>
    eventually(async () => (await admin.channel.get(`${queue}.dlq`, { noAck: true })) || undefined);

  it('moves a message whose handler keeps failing to the DLQ after exactly maxAttempts attempts, each after its delay', async () => {
    const queue = queues[0]!;
    const attemptsAt: number[] = [];
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 3,
      retryDelaysMs: [200, 400],
      handle: async () => {
        attemptsAt.push(Date.now());
        throw new Error('handler always fails');
      },
    });
    const event = userEvent();
    await broker.createPublisher().publish(event);

    const dead = await readDeadLetter(queue);
    expect(dead.properties.messageId).toBe(event.id);
    expect(JSON.parse(dead.content.toString())).toEqual(event);
    // Why, in a header of its own; the type is still known.
    expect(dead.properties.headers?.[DEAD_LETTER_REASON_HEADER]).toBe('failed 3 attempts: handler always fails');
    expect(originalRoutingKey(dead)).toBe('user.created');
    await sleep(300); // nothing is redelivered afterwards
    expect(attemptsAt).toHaveLength(3);
    // Each next attempt waited out its delay in the delay queue.
    expect(attemptsAt[1]! - attemptsAt[0]!).toBeGreaterThanOrEqual(190);
    expect(attemptsAt[2]! - attemptsAt[1]!).toBeGreaterThanOrEqual(390);
    expect((await admin.channel.checkQueue(queue)).messageCount).toBe(0);
  });

  it('holds an event while its dependency is away, retries it once back, and never counts that as an attempt', async () => {
    const queue = queues[3]!;
    let databaseUp = false;
    let calls = 0;
    const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const handled: string[] = [];
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 1,
      retryDelaysMs: [50],
      isReady: async () => databaseUp,
      isTransient: (error) => (error as { code?: unknown }).code === 'ECONNREFUSED',
      handle: async (event) => {
        calls += 1;
        if (!databaseUp) throw unavailable();
        handled.push(event.id);
      },
    });
    const publisher = broker.createPublisher();
    const events = [userEvent(), userEvent(), userEvent()];
    await publisher.publish(events[0]!);
    // The first delivery meets the outage; with maxAttempts 1, a counted failure would dead-letter it.
    await eventually(async () => calls > 0 || undefined);
    await publisher.publish(events[1]!);
    await publisher.publish(events[2]!);
    // The others are delivered too (none is left ready in the queue), and wait without being handled.
    await eventually(async () => ((await admin.messageCount(queue)) === 0 ? true : undefined));
    expect(await admin.messageCount(`${queue}.dlq`)).toBe(0);
    databaseUp = true;
    await eventually(async () => (handled.length === 3 ? true : undefined));
    expect(handled.sort()).toEqual(events.map((event) => event.id).sort());
    // One failed call during the outage, then one each: the two that came during it waited at the gate.
    expect(calls).toBe(4);
    expect(await admin.messageCount(`${queue}.dlq`)).toBe(0);
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
      admin.channel.publish(exchange, 'user.created', Buffer.from(content), {
        messageId,
        contentType: 'application/json',
      });
    send('not json {', 'not-json');
    send(JSON.stringify({ ...userEvent(), id: 'not-a-uuid' }), 'bad-envelope');
    const good = userEvent();
    await broker.createPublisher().publish(good);

    const dead = [await readDeadLetter(queue), await readDeadLetter(queue)];
    expect(dead.map((message) => message.properties.messageId).sort()).toEqual(['bad-envelope', 'not-json']);
    for (const message of dead)
      expect(message.properties.headers?.[DEAD_LETTER_REASON_HEADER]).toBe('malformed: not an event envelope');
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
