import type { EventEnvelope } from '@recipes/contracts';
import { amqpUrl, brokerAdmin, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broker, originalRoutingKey, replayDeadLetters } from '../src/index.js';
import { logger, sleep, userEvent } from './support.js';

describe('replayDeadLetters', () => {
  const exchange = uniqueName('messaging.replay');
  const queue = `${exchange}.svc`;
  const otherQueue = `${exchange}.other`;
  let broker: Broker;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;
  /** While set, the service's handler fails, as it would before the cause is fixed. */
  let failing = true;
  const handled: string[] = [];
  const calls = new Map<string, number>();
  const otherHandled: string[] = [];

  const deadLetterCount = async () => (await admin.channel.checkQueue(`${queue}.dlq`)).messageCount;
  const waitForDeadLetters = (count: number) =>
    eventually(async () => ((await deadLetterCount()) === count ? true : undefined));

  beforeAll(async () => {
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-replay-test' });
    admin = await brokerAdmin(amqpUrl());
    await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 2,
      retryDelaysMs: [50],
      handle: async (event: EventEnvelope) => {
        calls.set(event.id, (calls.get(event.id) ?? 0) + 1);
        if (failing) throw new Error('the cause is not fixed yet');
        handled.push(event.id);
      },
    });
    // Another service consuming the same type: a replay must not reach it.
    await broker.consume({
      queue: otherQueue,
      bindings: ['user.created'],
      maxAttempts: 2,
      handle: async (event) => {
        otherHandled.push(event.id);
      },
    });
  });
  afterAll(async () => {
    try {
      await broker?.close();
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue, otherQueue] });
    }
  });

  it('moves dead letters back to the service’s own queue, where they are handled once each', async () => {
    const events = Array.from({ length: 5 }, () => userEvent());
    const publisher = broker.createPublisher();
    for (const event of events) await publisher.publish(event);
    await waitForDeadLetters(5);
    await eventually(async () => (otherHandled.length === 5 ? true : undefined));

    failing = false;
    expect(await replayDeadLetters({ url: amqpUrl(), exchange, queue, limit: 2 })).toEqual({
      replayed: 2,
      remaining: 3,
    });
    await eventually(async () => (handled.length === 2 ? true : undefined));
    expect(await replayDeadLetters({ url: amqpUrl(), exchange, queue })).toEqual({ replayed: 3, remaining: 0 });
    await eventually(async () => (handled.length === 5 ? true : undefined));

    await sleep(300); // nothing more arrives: no duplicates, and the other consumer saw each event once
    expect([...handled].sort()).toEqual(events.map((event) => event.id).sort());
    expect(otherHandled).toHaveLength(5);
    expect(await deadLetterCount()).toBe(0);
    expect((await admin.channel.checkQueue(queue)).messageCount).toBe(0);
  });

  it('gives a replayed message its full attempts again, and keeps its routing key and properties', async () => {
    failing = true;
    const event = userEvent();
    await broker.createPublisher().publish(event);
    await waitForDeadLetters(1);
    expect(calls.get(event.id)).toBe(2);

    expect(await replayDeadLetters({ url: amqpUrl(), exchange, queue })).toEqual({ replayed: 1, remaining: 0 });
    await waitForDeadLetters(1); // the cause is still there: dead-lettered again, after two more attempts
    expect(calls.get(event.id)).toBe(4);

    const dead = await eventually(async () => (await admin.channel.get(`${queue}.dlq`, { noAck: true })) || undefined);
    expect(dead.properties).toMatchObject({
      messageId: event.id,
      type: 'user.created',
      correlationId: event.correlationId,
      contentType: 'application/json',
    });
    expect(dead.properties.headers).toMatchObject({
      'x-original-routing-key': 'user.created',
      'x-replayed-from': queue,
    });
    expect(originalRoutingKey(dead)).toBe('user.created');
    expect(JSON.parse(dead.content.toString())).toEqual(event);
  });

  it('refuses a queue the service never declared, or one of another exchange', async () => {
    await expect(replayDeadLetters({ url: amqpUrl(), exchange, queue: `${exchange}.nobody` })).rejects.toThrow(
      /nobody/,
    );
    await expect(replayDeadLetters({ url: amqpUrl(), exchange, queue: 'elsewhere.svc' })).rejects.toThrow(
      'queue elsewhere.svc is not a queue of the exchange',
    );
  });
});
