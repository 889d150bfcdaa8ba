import { createPool, migrate, type Pool } from '@recipes/db';
import { Broker, type Consumer } from '@recipes/messaging';
import { enqueue, OutboxRelay, outboxMigrations } from '@recipes/outbox';
import {
  amqpUrl,
  createTcpProxy,
  createTestDatabase,
  eventually,
  removeExchangeFamily,
  type TcpProxy,
  type TestDatabase,
  uniqueName,
} from '@recipes/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deadLetterQueueMetrics,
  httpMetrics,
  metricsListener,
  outboxMetrics,
  poolMetrics,
  Registry,
} from '../src/index.js';
import { logger, metricsUrlOf, scrape, userEvent, valueOf } from './support.js';

/** How long a scrape waits for the database and the broker here. */
const READ_TIMEOUT_MS = 300;

/**
 * A process's metrics as the runtime wires them, with PostgreSQL and RabbitMQ behind proxies so that the
 * test can take them away: a scrape must answer all the same, quickly, and without made-up values.
 */
describe('scrapes while the database or the broker is down', () => {
  const exchange = uniqueName('metrics.outage');
  const queue = uniqueName('metrics.outage');
  const dlq = `${queue}.dlq`;
  let database: TestDatabase;
  let databaseProxy: TcpProxy;
  let brokerProxy: TcpProxy;
  let pool: Pool;
  let broker: Broker;
  let consumer: Consumer;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate({ databaseUrl: database.url, schema: 'svc', sets: [outboxMigrations], logger });
    [databaseProxy, brokerProxy] = await Promise.all([createTcpProxy(database.url), createTcpProxy(amqpUrl())]);
    pool = createPool({
      connectionString: databaseProxy.url,
      schema: 'svc',
      applicationName: 'metrics-outage-test',
      logger,
    });
    broker = new Broker({ url: brokerProxy.url, exchange, logger, name: 'metrics-outage-test', reconnectDelayMs: 200 });
    consumer = await broker.consume({
      queue,
      bindings: ['user.created'],
      maxAttempts: 1,
      handle: async () => undefined,
    });
    // Not started: only its backlog is read.
    const relay = new OutboxRelay({ pool, schema: 'svc', publisher: broker.createPublisher(), logger });

    const registry = new Registry();
    poolMetrics(registry, pool);
    outboxMetrics(registry, () => relay.backlog(), READ_TIMEOUT_MS);
    deadLetterQueueMetrics(registry, dlq, (name) => broker.queueDepth(name), READ_TIMEOUT_MS);
    app = Fastify({ loggerInstance: logger });
    await app.register(httpMetrics);
    await app.register(metricsListener, { labels: { service: 'outage' }, registries: [registry, app.metricsRegistry] });
    await app.ready();
    await app.metricsServer.listen({ host: '127.0.0.1', port: 0 });
    url = metricsUrlOf(app);
  });
  afterAll(async () => {
    try {
      await app?.close();
      await consumer?.close();
      await broker?.close();
      await pool?.end();
      await Promise.all([databaseProxy?.close(), brokerProxy?.close()]);
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue] });
      await database?.drop();
    }
  });

  it('shows the outbox backlog, the pool and the dead-letter queue while both are up', async () => {
    await enqueue(pool, userEvent(), userEvent());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { status, text } = await scrape(url);
    expect(status).toBe(200);
    expect(valueOf(text, 'recipes_outbox_pending_events', { service: 'outage' })).toBe(2);
    expect(valueOf(text, 'recipes_outbox_oldest_event_age_seconds')).toBeGreaterThan(0.01);
    expect(valueOf(text, 'recipes_dead_letter_queue_messages', { queue: dlq })).toBe(0);
    expect(valueOf(text, 'recipes_db_pool_clients')).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'recipes_db_pool_idle_clients')).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'recipes_db_pool_waiting_requests')).toBe(0);
  });

  it('still answers at once, leaving out what it cannot read, when both are down', async () => {
    databaseProxy.cut();
    brokerProxy.cut();
    try {
      await eventually(async () => (broker.isConnected() ? undefined : true));
      const started = Date.now();
      const { status, text } = await scrape(url);
      expect(status).toBe(200);
      expect(Date.now() - started).toBeLessThan(READ_TIMEOUT_MS + 700);
      expect(valueOf(text, 'recipes_outbox_pending_events')).toBeUndefined();
      expect(valueOf(text, 'recipes_outbox_oldest_event_age_seconds')).toBeUndefined();
      expect(valueOf(text, 'recipes_dead_letter_queue_messages', { queue: dlq })).toBeUndefined();
      // What the process knows by itself is still there.
      expect(valueOf(text, 'recipes_db_pool_waiting_requests')).toBe(0);
      expect(valueOf(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(text).not.toMatch(/NaN/);
    } finally {
      databaseProxy.restore();
      brokerProxy.restore();
    }
  });

  it('shows them again once both are back', async () => {
    await eventually(
      async () => {
        const { text } = await scrape(url);
        return valueOf(text, 'recipes_outbox_pending_events') === 2 &&
          valueOf(text, 'recipes_dead_letter_queue_messages', { queue: dlq }) === 0
          ? true
          : undefined;
      },
      15_000,
      100,
    );
  });
});

describe('scrapes while a dependency does not answer at all', () => {
  it('give up waiting after the read timeout and leave the gauge out', async () => {
    const registry = new Registry();
    let backlogReads = 0;
    const never = () => {
      backlogReads += 1;
      return new Promise<never>(() => undefined);
    };
    outboxMetrics(registry, never, READ_TIMEOUT_MS);
    deadLetterQueueMetrics(registry, 'silent.dlq', () => new Promise(() => undefined), READ_TIMEOUT_MS);
    const started = Date.now();
    const text = await registry.metrics();
    expect(Date.now() - started).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 20);
    expect(Date.now() - started).toBeLessThan(READ_TIMEOUT_MS + 500);
    expect(valueOf(text, 'recipes_outbox_pending_events')).toBeUndefined();
    expect(valueOf(text, 'recipes_dead_letter_queue_messages', { queue: 'silent.dlq' })).toBeUndefined();
    // Both gauges shared one query, and the next scrape waits on it rather than piling up another.
    await registry.metrics();
    expect(backlogReads).toBe(1);
  });
});
