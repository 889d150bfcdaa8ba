import { Broker, type Consumer } from '@recipes/messaging';
import { amqpUrl, brokerAdmin, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterQueueMetrics, eventMetrics, eventQueueMetrics, Registry } from '../src/index.js';
import { logger, samples, userEvent, valueOf } from './support.js';

describe('event metrics through a real broker', () => {
  const exchange = uniqueName('metrics');
  const queue = uniqueName('metrics.events');
  const registry = new Registry();
  /** A queue nobody declared: the broker does not answer for it. */
  const missingQueue = uniqueName('metrics.missing');
  let broker: Broker;
  let consumer: Consumer;
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;
  /** Events whose handler fails every time. */
  const poisoned = new Set<string>();
  const handled = new Set<string>();

  beforeAll(async () => {
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'metrics-test', metrics: eventMetrics(registry) });
    consumer = await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 2,
      retryDelaysMs: [50],
      handle: async (event) => {
        if (poisoned.has(event.id)) throw new Error('this event always fails');
        handled.add(event.id);
      },
    });
    deadLetterQueueMetrics(registry, `${queue}.dlq`, (dlq) => broker.queueDepth(dlq));
    eventQueueMetrics(registry, [queue, missingQueue], (name) => broker.queueDepth(name));
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    try {
      await consumer?.close();
      await broker?.close();
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue] });
    }
  });

  const current = async (name: string, labels: Record<string, string> = {}) =>
    valueOf(await registry.metrics(), name, labels);

  it('counts published and consumed events by type', async () => {
    const events = [userEvent(), userEvent(), userEvent()];
    const publisher = broker.createPublisher();
    for (const event of events) await publisher.publish(event);
    expect(await current('recipes_events_published_total', { type: 'user.created' })).toBe(3);
    await eventually(async () => (events.every((event) => handled.has(event.id)) ? true : undefined));
    await eventually(async () =>
      (await current('recipes_events_consumed_total', { type: 'user.created' })) === 3 ? true : undefined,
    );
    expect(await current('recipes_events_consume_failures_total', { type: 'user.created' })).toBeUndefined();
  });

  it('counts each failed delivery, the dead-lettered one, and shows it in the dead-letter queue depth', async () => {
    expect(await current('recipes_dead_letter_queue_messages', { queue: `${queue}.dlq` })).toBe(0);
    const event = userEvent();
    poisoned.add(event.id);
    await broker.createPublisher().publish(event);
    // Two attempts (maxAttempts), then the dead-letter queue.
    await eventually(async () =>
      (await current('recipes_events_dead_lettered_total', { type: 'user.created' })) === 1 ? true : undefined,
    );
    expect(await current('recipes_events_consume_failures_total', { type: 'user.created' })).toBe(2);
    expect(await current('recipes_events_consumed_total', { type: 'user.created' })).toBe(3);
    await eventually(async () =>
      (await current('recipes_dead_letter_queue_messages', { queue: `${queue}.dlq` })) === 1 ? true : undefined,
    );
  });

  it('times each handler run by queue, type and outcome', async () => {
    const labels = { queue, type: 'user.created' };
    const handled = await current('recipes_event_handler_duration_seconds_count', { ...labels, outcome: 'consumed' });
    expect(handled).toBeGreaterThanOrEqual(3);
    // The poisoned event's two attempts.
    expect(await current('recipes_event_handler_duration_seconds_count', { ...labels, outcome: 'failed' })).toBe(2);
    expect(
      await current('recipes_event_handler_duration_seconds_sum', { ...labels, outcome: 'consumed' }),
    ).toBeGreaterThan(0);
  });

  it('shows the depth of an event queue while its consumer is away, and leaves out a queue the broker does not know', async () => {
    const depth = async () => current('recipes_event_queue_messages', { queue });
    expect(await depth()).toBe(0);
    await consumer.close();
    const publisher = broker.createPublisher();
    for (let i = 0; i < 4; i += 1) await publisher.publish(userEvent());
    await eventually(async () => ((await depth()) === 4 ? true : undefined));
    expect(
      samples(await registry.metrics(), 'recipes_event_queue_messages').map((sample) => sample.labels.queue),
    ).toEqual([queue]);
  });

  it('counts a publish the broker did not confirm as a failure', async () => {
    const own = new Registry();
    const unreachable = new Broker({
      url: 'amqp://guest:guest@127.0.0.1:1',
      exchange,
      logger,
      metrics: eventMetrics(own),
    });
    try {
      await expect(unreachable.createPublisher({ timeoutMs: 100 }).publish(userEvent())).rejects.toThrow(
        /not confirmed/,
      );
      const text = await own.metrics();
      expect(valueOf(text, 'recipes_events_publish_failures_total', { type: 'user.created' })).toBe(1);
      expect(valueOf(text, 'recipes_events_published_total')).toBeUndefined();
    } finally {
      await unreachable.close();
    }
  });
});
