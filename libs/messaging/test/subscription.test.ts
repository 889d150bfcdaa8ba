import type { EventEnvelope } from '@recipes/contracts';
import {
  amqpUrl,
  brokerAdmin,
  createTcpProxy,
  eventually,
  removeExchangeFamily,
  type TcpProxy,
  uniqueName,
} from '@recipes/testing';
import type { Channel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broker, type Subscription } from '../src/index.js';
import { logger, userEvent } from './support.js';

/** An event of `type`: a valid envelope whatever the type, which is all a subscription looks at. */
const eventOf = (type: string): EventEnvelope => ({ ...userEvent(), type });

/** What one subscription heard, in order, by event id. */
function collector() {
  const heard: string[] = [];
  return {
    heard,
    handle: async (event: EventEnvelope) => {
      heard.push(event.id);
    },
    /** Resolves once `id` was heard. */
    hears: (id: string) => eventually(async () => heard.includes(id) || undefined),
  };
}

/**
 * Records the server-named queues a broker's subscriptions declare, by watching the channel their setup is
 * given: the library never names them, and nothing else tells which of the broker's queues is theirs.
 */
function recordSubscriptionQueues(broker: Broker): string[] {
  const queues: string[] = [];
  type CreateChannel = (
    label: string,
    confirm: boolean,
    isClosing: () => boolean,
    declare: (channel: Channel) => Promise<void>,
  ) => unknown;
  const internals = broker as unknown as { createChannel: CreateChannel };
  const original = internals.createChannel.bind(broker);
  internals.createChannel = (label, confirm, isClosing, declare) =>
    original(label, confirm, isClosing, async (channel) => {
      if (label === 'subscription') {
        const assertQueue = channel.assertQueue.bind(channel);
        channel.assertQueue = (async (...args: Parameters<Channel['assertQueue']>) => {
          const reply = await assertQueue(...args);
          queues.push(reply.queue);
          return reply;
        }) as Channel['assertQueue'];
      }
      await declare(channel);
    });
  return queues;
}

describe('Broker.subscribe', () => {
  const exchange = uniqueName('messaging.subscription');
  const brokers: Broker[] = [];
  const proxies: TcpProxy[] = [];
  let admin: Awaited<ReturnType<typeof brokerAdmin>>;

  function newBroker(url = amqpUrl()): Broker {
    const broker = new Broker({ url, exchange, logger, name: 'messaging-subscription-test', reconnectDelayMs: 200 });
    brokers.push(broker);
    return broker;
  }

  /**
   * Publishes `event` as mandatory, straight to the broker, and says whether the broker found no queue for it
   * (it returns such a message before confirming it, so the answer is final once confirmed).
   */
  async function publishMandatory(event: EventEnvelope): Promise<{ unroutable: boolean }> {
    const channel = await admin.connection.createConfirmChannel();
    let unroutable = false;
    channel.on('return', () => {
      unroutable = true;
    });
    try {
      await channel.assertExchange(exchange, 'topic', { durable: true });
      channel.publish(exchange, event.type, Buffer.from(JSON.stringify(event)), {
        mandatory: true,
        contentType: 'application/json',
      });
      await channel.waitForConfirms();
      return { unroutable };
    } finally {
      await channel.close();
    }
  }

  /**
   * What the broker says when asked about `queue` from another connection: an exclusive queue of some
   * other connection is `locked` (405), a missing one `missing` (404).
   */
  async function queueState(queue: string): Promise<'exists' | 'locked' | 'missing'> {
    const probe = await admin.connection.createChannel();
    probe.on('error', () => undefined); // a failed check closes the channel and reports it here too
    try {
      await probe.checkQueue(queue);
      await probe.close();
      return 'exists';
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === 405) return 'locked';
      if (code === 404) return 'missing';
      throw error;
    }
  }

  beforeAll(async () => {
    admin = await brokerAdmin(amqpUrl());
  });
  afterAll(async () => {
    try {
      await Promise.all(brokers.map((broker) => broker.close()));
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await admin?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange);
    }
  });

  it('gives every instance every event of the types it binds, once, and none of the others', async () => {
    const [first, second] = [collector(), collector()];
    await newBroker().subscribe({ bindings: ['user.created', 'user.updated'], handle: first.handle });
    await newBroker().subscribe({ bindings: ['user.created', 'user.updated'], handle: second.handle });

    const created = eventOf('user.created');
    const unbound = eventOf('test.unbound');
    const updated = eventOf('user.updated');
    // The last one is the barrier: each queue delivers in order, so once it is heard, whatever was routed
    // to the queue before it (the unbound one, a second copy) would have been heard already.
    const barrier = eventOf('user.created');
    await admin.publish(exchange, [created, unbound, updated, barrier]);

    await Promise.all([first.hears(barrier.id), second.hears(barrier.id)]);
    expect(first.heard).toEqual([created.id, updated.id, barrier.id]);
    expect(second.heard).toEqual([created.id, updated.id, barrier.id]);
  });

  it('goes on with the next events when its handler fails', async () => {
    const heard: string[] = [];
    const failing = new Set<string>();
    await newBroker().subscribe({
      bindings: ['test.failing'],
      handle: async (event) => {
        heard.push(event.id);
        if (failing.has(event.id)) throw new Error('handler failed');
      },
    });
    const [fails, alsoFails, next] = [eventOf('test.failing'), eventOf('test.failing'), eventOf('test.failing')];
    failing.add(fails.id).add(alsoFails.id);

    await admin.publish(exchange, [fails, alsoFails, next]);
    await eventually(async () => heard.includes(next.id) || undefined);
    expect(heard).toEqual([fails.id, alsoFails.id, next.id]);
  });

  it('goes on, on the same connection, when its handler throws before returning a promise', async () => {
    const heard: string[] = [];
    const broker = newBroker();
    await broker.subscribe({
      bindings: ['test.throwing'],
      handle: (event) => {
        heard.push(event.id);
        if (heard.length === 1) throw new Error('thrown at once');
        return Promise.resolve();
      },
    });
    const [throws, next] = [eventOf('test.throwing'), eventOf('test.throwing')];
    await admin.publish(exchange, [throws, next]);
    await eventually(async () => heard.includes(next.id) || undefined);
    expect(heard).toEqual([throws.id, next.id]);
  });

  it('hears nothing more once closed, and its queue is gone', async () => {
    const broker = newBroker();
    const queues = recordSubscriptionQueues(broker);
    const { heard, handle, hears } = collector();
    const subscription: Subscription = await broker.subscribe({ bindings: ['test.closing'], handle });
    expect(queues).toHaveLength(1);
    const [queue] = queues as [string];
    expect(queue).toMatch(/^amq\.gen-/);

    const before = eventOf('test.closing');
    expect(await publishMandatory(before)).toEqual({ unroutable: false });
    await hears(before.id);
    expect(await queueState(queue)).toBe('locked'); // there, and exclusive to the subscription's connection

    await subscription.close();
    // The broker stays connected: the queue goes because it was the subscription's alone, not with the connection.
    expect(broker.isConnected()).toBe(true);
    await eventually(async () => ((await queueState(queue)) === 'missing' ? true : undefined));
    // No queue took the next event at all, so it can never be heard, now or later.
    const after = eventOf('test.closing');
    expect(await publishMandatory(after)).toEqual({ unroutable: true });
    expect(heard).toEqual([before.id]);
  });

  it('after the connection comes back, calls onResumed once and hears the events published since', async () => {
    const proxy = await createTcpProxy(amqpUrl());
    proxies.push(proxy);
    const broker = newBroker(proxy.url);
    const { heard, handle, hears } = collector();
    let resumed = 0;
    await broker.subscribe({
      bindings: ['test.resuming'],
      handle,
      onResumed: () => {
        resumed += 1;
      },
    });

    const before = eventOf('test.resuming');
    await admin.publish(exchange, [before]);
    await hears(before.id);
    expect(resumed).toBe(0); // the first subscription is not a resumption

    proxy.cut();
    await eventually(async () => !broker.isConnected() || undefined);
    // Published while the instance is away: no queue of its new connection exists to keep it.
    const missed = eventOf('test.resuming');
    await admin.publish(exchange, [missed]);

    proxy.restore();
    await eventually(async () => resumed > 0 || undefined);
    // onResumed runs once the new queue is bound and consumed, so what is published now is heard.
    const after = eventOf('test.resuming');
    await admin.publish(exchange, [after]);
    await hears(after.id);
    expect(resumed).toBe(1);
    expect(heard).toEqual([before.id, after.id]);
  });
});
