import { Broker, type Consumer } from '@recipes/messaging';
import { amqpUrl, brokerAdmin, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterQueueMetrics, eventMetrics, Registry } from '../src/index.js';
import { logger, userEvent, valueOf } from './support.js';

describe('event metrics through a real broker', () => {
  const exchange = uniqueName('metrics');
  const queue = uniqueName('metrics.events');
  const registry = new Registry();
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

  const current = async (name: string, labels: Record<string, string> = {}) => valueOf(await registry.metrics(), name, labels);

  it('counts published and consumed events by type', async () => {
    const events = [userEvent(), userEvent(), userEvent()];
    const publisher = broker.createPublisher();
    for (const event of events) await publisher.publish(event);
    expect(await current('recipes_events_published_total', { type: 'user.created' })).toBe(3);
    await eventually(async () => (events.every((event) => handled.has(event.id)) ? true : undefined));
    await eventually(async () => ((await current('recipes_events_consumed_total', { type: 'user.created' })) === 3 ? true : undefined));
    expect(await current('recipes_events_consume_failures_total', { type: 'user.created' })).toBeUndefined();
  });

  it('counts each failed delivery, the dead-lettered one, and shows it in the dead-letter queue depth', async () => {
    expect(await current('recipes_dead_letter_queue_messages', { queue: `${queue}.dlq` })).toBe(0);
    const event = userEvent();
    poisoned.add(event.id);
    await broker.createPublisher().publish(event);
    // Two attempts (maxAttempts), then the dead-letter queue.
    await eventually(async () => ((await current('recipes_events_dead_lettered_total', { type: 'user.created' })) === 1 ? true : undefined));
    expect(await current('recipes_events_consume_failures_total', { type: 'user.created' })).toBe(2);
    expect(await current('recipes_events_consumed_total', { type: 'user.created' })).toBe(3);
    await eventually(async () => ((await current('recipes_dead_letter_queue_messages', { queue: `${queue}.dlq` })) === 1 ? true : undefined));
  });

  it('counts a publish the broker did not confirm as a failure', async () => {
    const own = new Registry();
    const unreachable = new Broker({ url: 'amqp://guest:guest@127.0.0.1:1', exchange, logger, metrics: eventMetrics(own) });
    try {
      await expect(unreachable.createPublisher({ timeoutMs: 100 }).publish(userEvent())).rejects.toThrow(/not confirmed/);
      const text = await own.metrics();
      expect(valueOf(text, 'recipes_events_publish_failures_total', { type: 'user.created' })).toBe(1);
      expect(valueOf(text, 'recipes_events_published_total')).toBeUndefined();
    } finally {
      await unreachable.close();
    }
  });
});
