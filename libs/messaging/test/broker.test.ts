import { Socket } from 'node:net';
import { amqpUrl, brokerAdmin, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Broker } from '../src/index.js';
import { logger, sleep, userEvent } from './support.js';

describe('Broker: publish and consume', () => {
  const exchange = uniqueName('messaging');
  const queues = [uniqueName('messaging.roundtrip'), uniqueName('messaging.inflight'), uniqueName('messaging.classic')];
  let broker: Broker;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  beforeAll(async () => {
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-test' });
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

  it('publishes with confirms and hands the consumer the envelope with a logger carrying its ids', async () => {
    const received: Array<{ event: unknown; bindings: Record<string, unknown> }> = [];
    const consumer = await broker.consume({
      queue: queues[0]!,
      bindings: ['user.created'],
      maxAttempts: 3,
      handle: async (event, log) => {
        received.push({ event, bindings: log.bindings() });
      },
    });
    // A second, plain queue on the same key shows the message exactly as the broker holds it.
    const { queue: probe } = await admin.channel.assertQueue('', { exclusive: true });
    await admin.channel.bindQueue(probe, exchange, 'user.created');

    const event = userEvent();
    await broker.createPublisher().publish(event);

    const raw = await eventually(async () => (await admin.channel.get(probe, { noAck: true })) || undefined);
    expect(raw.fields).toMatchObject({ exchange, routingKey: 'user.created' });
    expect(raw.properties).toMatchObject({
      contentType: 'application/json',
      deliveryMode: 2,
      messageId: event.id,
      type: event.type,
      correlationId: event.correlationId,
      timestamp: Math.floor(Date.parse(event.occurredAt) / 1_000),
    });
    expect(JSON.parse(raw.content.toString())).toEqual(event);

    await eventually(async () => received.length > 0 || undefined);
    expect(received).toEqual([
      {
        event,
        bindings: expect.objectContaining({
          eventId: event.id,
          eventType: event.type,
          correlationId: event.correlationId,
        }),
      },
    ]);
    expect(broker.isConnected()).toBe(true);
    await consumer.close();
  });

  it('rejects a publish the broker nacks', async () => {
    // A queue that refuses every message makes the broker nack what is routed to it.
    const { queue: full } = await admin.channel.assertQueue('', {
      exclusive: true,
      arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' },
    });
    await admin.channel.assertExchange(exchange, 'topic', { durable: true });
    await admin.channel.bindQueue(full, exchange, 'test.refused');
    await expect(broker.createPublisher().publish({ ...userEvent(), type: 'test.refused' })).rejects.toThrow(
      /not confirmed.*nack/,
    );
  });

  it('rejects a publish, instead of holding it, while the broker is unreachable', async () => {
    const offline = new Broker({ url: 'amqp://guest:guest@127.0.0.1:1', exchange, logger, reconnectDelayMs: 200 });
    const started = Date.now();
    await expect(offline.createPublisher({ timeoutMs: 300 }).publish(userEvent())).rejects.toThrow(
      /not confirmed.*timeout/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(offline.isConnected()).toBe(false);
    await offline.close();
  });

  it('rejects consume when the broker refuses the queue, and goes on working', async () => {
    // Declared before as a classic queue: the broker refuses to redeclare it as a quorum queue.
    await admin.channel.assertQueue(queues[2]!, { durable: true });
    const spec = { queue: queues[2]!, bindings: ['user.created'], maxAttempts: 3, handle: async () => undefined };
    await expect(broker.consume(spec)).rejects.toThrow(/PRECONDITION_FAILED/);
    await broker.createPublisher().publish(userEvent());
    expect(broker.isConnected()).toBe(true);
  });

  it('closes a consumer only after its handlers in flight have finished and acked', async () => {
    let started = false;
    let finished = false;
    const consumer = await broker.consume({
      queue: queues[1]!,
      bindings: ['user.created'],
      maxAttempts: 3,
      handle: async () => {
        started = true;
        await sleep(300);
        finished = true;
      },
    });
    await broker.createPublisher().publish(userEvent());
    await eventually(async () => started || undefined);
    await consumer.close();
    expect(finished).toBe(true);
    const { messageCount } = await admin.channel.checkQueue(queues[1]!);
    expect(messageCount).toBe(0);
  });
});

describe('Broker: its connection', () => {
  it('turns off Nagle’s algorithm, so that no small frame waits for the broker’s delayed ACK', async () => {
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const exchange = uniqueName('messaging.nodelay');
    const broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'messaging-test' });
    try {
      await eventually(async () => broker.isConnected() || undefined);
      const brokerPort = Number(new URL(amqpUrl()).port || 5672);
      const toBroker = noDelay.mock.calls.filter(
        (_, i) => (noDelay.mock.contexts[i] as Socket).remotePort === brokerPort,
      );
      expect(toBroker).toContainEqual([true]);
    } finally {
      noDelay.mockRestore();
      await broker.close();
      await removeExchangeFamily(amqpUrl(), exchange);
    }
  });
});
