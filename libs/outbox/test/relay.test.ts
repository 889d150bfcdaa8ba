import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createEvent, userCreated, type EventEnvelope } from '@recipes/contracts';
import { createPool, withTransaction, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { Broker, type Consumer, type Publisher } from '@recipes/messaging';
import { amqpUrl, createTcpProxy, eventually, removeExchangeFamily, uniqueName } from '@recipes/testing';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Test helpers of the messaging library: a plain admin connection, and a proxy to take "a" broker down.
import { enqueue, OutboxRelay, type OutboxRelaySettings, WRITER_WAKE_SETTINGS } from '../src/index.js';
import { type OutboxDatabase, outboxDatabase } from './support.js';

const logger = createLogger({ service: 'outbox-test', level: process.env.LOG_LEVEL ?? 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function userEvent(username = 'ada'): EventEnvelope {
  return createEvent(
    userCreated,
    { id: randomUUID(), username, avatarUrl: null, revision: 0 },
    { producer: 'users', correlationId: `req-${randomUUID()}` },
  );
}

describe('OutboxRelay', () => {
  const exchange = uniqueName('outbox');
  const queue = uniqueName('outbox');
  /** What the consumer got: every delivery of every event, and when the first one arrived. */
  const deliveries = new Map<string, EventEnvelope[]>();
  const arrivedAt = new Map<string, number>();
  let outbox: OutboxDatabase;
  let pool: Pool;
  let broker: Broker;
  let consumer: Consumer;
  const relays: OutboxRelay[] = [];

  function startRelay(settings: Partial<OutboxRelaySettings> = {}): OutboxRelay {
    const relay = new OutboxRelay({ pool, schema: 'svc', publisher: broker.createPublisher(), logger, ...settings });
    relays.push(relay);
    relay.start();
    return relay;
  }

  /** Writes `events` in one transaction on `on`. */
  const commitOn =
    (on: Pool) =>
    (...events: EventEnvelope[]) =>
      withTransaction(on, (client) => enqueue(client, ...events));
  const commit = (...events: EventEnvelope[]) => commitOn(pool)(...events);
  const deliveryCount = (id: string) => deliveries.get(id)?.length ?? 0;
  const allArrived = (events: EventEnvelope[]) =>
    eventually(async () => events.every((event) => deliveries.has(event.id)) || undefined, 15_000);
  const outboxRows = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox')).rows[0]!.n;

  beforeAll(async () => {
    outbox = await outboxDatabase({ schema: 'svc', applicationName: 'outbox-relay-test', logger });
    pool = outbox.pool;
    broker = new Broker({ url: amqpUrl(), exchange, logger, name: 'outbox-relay-test' });
    consumer = await broker.consume({
      queue,
      bindings: ['user.created'],
      prefetch: 100,
      maxAttempts: 3,
      handle: async (event) => {
        deliveries.set(event.id, [...(deliveries.get(event.id) ?? []), event]);
        if (!arrivedAt.has(event.id)) arrivedAt.set(event.id, Date.now());
      },
    });
  });
  afterAll(async () => {
    try {
      await Promise.all(relays.map((relay) => relay.stop()));
      await consumer?.close();
      await broker?.close();
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange, { queues: [queue] });
      await outbox?.drop();
    }
  });

  it('publishes an event committed with its change exactly once, and never one rolled back', async () => {
    const relay = startRelay();
    // Quotes, backslashes and non-ASCII survive the trip through a jsonb array parameter.
    const committed = userEvent('a "quoted" \\ name – ünïcødé');
    const rolledBack = userEvent();
    await expect(
      withTransaction(pool, async (client) => {
        await enqueue(client, rolledBack);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await commit(committed);

    await allArrived([committed]);
    await sleep(300);
    expect(deliveries.get(committed.id)).toEqual([committed]);
    expect(deliveries.has(rolledBack.id)).toBe(false);
    expect(await relay.backlog()).toEqual({ count: 0, oldestAgeMs: null });
    await relay.stop();
  });

  /** Commits `event` with `write`, and how long until the consumer had it; the relay is left idle first. */
  async function wakeLatency(write: (event: EventEnvelope) => Promise<unknown>): Promise<number> {
    await sleep(200); // the relay goes idle: from here on only a wake-up can bring it in before its next poll
    const event = userEvent();
    const committedAt = Date.now();
    await write(event);
    await allArrived([event]);
    return arrivedAt.get(event.id)! - committedAt;
  }

  it('wakes on the NOTIFY that another process sends with its writes, also after its LISTEN connection was killed', async () => {
    // Another process: a pool of its own, which no relay watches.
    const elsewhere = createPool({
      connectionString: outbox.url,
      schema: 'svc',
      applicationName: 'outbox-relay-test-elsewhere',
      logger,
    });
    const commitElsewhere = commitOn(elsewhere);
    const relay = startRelay({ pollIntervalMs: 10_000 });
    try {
      await commitElsewhere(userEvent()); // warm-up: the relay is running
      expect(await wakeLatency(commitElsewhere)).toBeLessThan(500);

      // The database drops the LISTEN connection (as in a restart): the relay makes a new one.
      const listeners = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;
      const [killed] = (await pool.query<{ pid: number }>(listeners)).rows;
      expect(killed).toBeDefined();
      await pool.query('SELECT pg_terminate_backend($1)', [killed!.pid]);
      await eventually(async () =>
        (await pool.query<{ pid: number }>(listeners)).rows.find((row) => row.pid !== killed!.pid),
      );
      expect(await wakeLatency(commitElsewhere)).toBeLessThan(500);
    } finally {
      await relay.stop();
      await elsewhere.end();
    }
  });

  /** A service's pool, as the runtime makes it: each connection made once the relay runs wakes it. */
  const servicePool = () =>
    createPool({
      connectionString: outbox.url,
      schema: 'svc',
      settings: WRITER_WAKE_SETTINGS,
      applicationName: 'outbox-relay-test-own',
      logger,
    });

  it('wakes when its own process commits, in a transaction or a single statement, and no NOTIFY reaches the listeners of the database', async () => {
    const own = servicePool();
    const listener = new pg.Client({ connectionString: outbox.url });
    const heard: string[] = [];
    listener.on('notification', ({ channel }) => heard.push(channel));
    await listener.connect();
    await listener.query('LISTEN svc_outbox');
    const relay = startRelay({ pool: own, pollIntervalMs: 10_000 });
    try {
      const inTransaction = commitOn(own);
      await inTransaction(userEvent()); // warm-up: the relay is running
      expect(await wakeLatency(inTransaction)).toBeLessThan(500);
      expect(await wakeLatency((event) => enqueue(own, event))).toBeLessThan(500);
      // A transaction rolled back after its write wakes the relay for nothing, and a later one still wakes it.
      const failing = withTransaction(own, async (client) => {
        await enqueue(client, userEvent());
        throw new Error('the change failed');
      });
      await expect(failing).rejects.toThrow('the change failed');
      expect(await wakeLatency(inTransaction)).toBeLessThan(500);

      // The barrier: a write of another connection notifies, and is the only notification heard.
      const other = new pg.Client({ connectionString: outbox.url, options: '-c search_path=svc' });
      await other.connect();
      await enqueue(other, userEvent());
      await other.end();
      await eventually(async () => heard.length > 0 || undefined);
      expect(heard).toEqual(['svc_outbox']);
    } finally {
      await relay.stop();
      await listener.end();
      await own.end();
    }
  });

  it('is woken for every commit of its own process, whatever the transactions around the writes and however they interleave', async () => {
    // Only a wake-up can bring the relay in: its poll would come after the test's end.
    const own = servicePool();
    const relay = startRelay({ pool: own, pollIntervalMs: 60_000 });
    type End = 'commit' | 'rollback' | 'error' | 'savepoint rolled back';
    type Write = { in: 'statement' } | { in: 'transaction'; end: End };
    const write = fc.oneof(
      fc.constant<Write>({ in: 'statement' }),
      fc
        .constantFrom<End>('commit', 'rollback', 'error', 'savepoint rolled back')
        .map((end): Write => ({ in: 'transaction', end })),
    );
    /** Runs `write` of `events`, and gives back those it committed. */
    async function run(written: Write, events: EventEnvelope[]): Promise<EventEnvelope[]> {
      if (written.in === 'statement') {
        await enqueue(own, ...events);
        return events;
      }
      const kept = written.end === 'savepoint rolled back' ? events.slice(1) : events;
      const outcome = withTransaction(own, async (client) => {
        await client.query('SELECT pg_sleep(random() * 0.01)'); // other writes go on meanwhile
        if (written.end === 'savepoint rolled back') {
          await client.query('SAVEPOINT first');
          await enqueue(client, events[0]!);
          await client.query('ROLLBACK TO SAVEPOINT first');
        }
        await enqueue(client, ...kept);
        if (written.end === 'error') await client.query('SELECT 1 / 0');
        if (written.end === 'rollback') throw new Error('rolled back');
      });
      if (written.end === 'commit' || written.end === 'savepoint rolled back') return outcome.then(() => kept);
      return outcome.then(
        () => Promise.reject(new Error('committed a transaction that was to fail')),
        () => [],
      );
    }
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(write, fc.integer({ min: 2, max: 4 })), { minLength: 1, maxLength: 8 }),
          async (writes) => {
            const attempted = writes.map(([, count]) => Array.from({ length: count }, () => userEvent()));
            // All at once, on as many of the pool's connections as it gives.
            const committed = (
              await Promise.all(writes.map(([written], index) => run(written, attempted[index]!)))
            ).flat();
            await eventually(async () => committed.every((event) => deliveries.has(event.id)) || undefined, 3_000);
            // The barrier: the outbox is empty, so nothing rolled back can still come. A delivery can arrive
            // before the relay's DELETE of its row commits (it deletes once the broker confirms): wait for it.
            await eventually(async () => ((await outboxRows()) === 0 ? true : undefined), 3_000);
            const rolledBack = attempted.flat().filter((event) => !committed.includes(event));
            expect(rolledBack.filter((event) => deliveries.has(event.id))).toEqual([]);
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await relay.stop();
      await own.end();
    }
  });

  it('tries a row put back after a failed publish again when its backoff ends, not at the next poll', async () => {
    const publisher = broker.createPublisher();
    const failedOnce = new Set<string>();
    const relay = startRelay({
      // The first publish of each event fails, as one the broker does not confirm.
      publisher: {
        publish: async (event, options) => {
          if (failedOnce.has(event.id)) return publisher.publish(event, options);
          failedOnce.add(event.id);
          throw new Error('not confirmed');
        },
      },
      pollIntervalMs: 60_000,
    });
    const event = userEvent();
    const committedAt = Date.now();
    await commit(event);
    await allArrived([event]);
    // Its first backoff is 500 ms; a poll would have come after a minute.
    expect(arrivedAt.get(event.id)! - committedAt).toBeLessThan(2_000);
    expect(failedOnce.has(event.id)).toBe(true);
    await relay.stop();
  });

  it('keeps every row while the broker is unreachable and publishes each exactly once when it is back', async () => {
    const proxy = await createTcpProxy(amqpUrl());
    proxy.cut();
    const remote = new Broker({
      url: proxy.url,
      exchange,
      logger,
      name: 'outbox-relay-test-remote',
      reconnectDelayMs: 200,
    });
    const relay = startRelay({ publisher: remote.createPublisher({ timeoutMs: 300 }), pollIntervalMs: 100 });
    const events = Array.from({ length: 20 }, () => userEvent());
    await commit(...events);

    // Every row has failed at least once, and is still there.
    await eventually(async () => {
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM outbox WHERE attempts > 0 AND last_error IS NOT NULL',
      );
      return rows[0]!.n === events.length || undefined;
    });
    expect((await relay.backlog()).count).toBe(events.length);
    expect(events.filter((event) => deliveries.has(event.id))).toEqual([]);

    proxy.restore();
    await allArrived(events);
    await eventually(async () => (await outboxRows()) === 0 || undefined);
    await sleep(300);
    expect(events.map((event) => deliveryCount(event.id))).toEqual(events.map(() => 1));

    await relay.stop();
    await remote.close();
    await proxy.close();
  });

  it('shares the table between two relays: 500 events, each published exactly once', async () => {
    const published = [0, 0];
    const counting = (index: number): Publisher => {
      const publisher = broker.createPublisher();
      return {
        publish: async (event, options) => {
          await publisher.publish(event, options);
          published[index]! += 1;
        },
      };
    };
    const pair = [
      startRelay({ publisher: counting(0), batchSize: 50 }),
      startRelay({ publisher: counting(1), batchSize: 50 }),
    ];
    const events = Array.from({ length: 500 }, () => userEvent());
    for (let start = 0; start < events.length; start += 100) await commit(...events.slice(start, start + 100));

    await allArrived(events);
    await eventually(async () => (await outboxRows()) === 0 || undefined);
    await sleep(300);
    expect(events.filter((event) => deliveryCount(event.id) !== 1)).toEqual([]);
    expect(published[0]! + published[1]!).toBe(500);
    expect(published[0]).toBeGreaterThan(0);
    expect(published[1]).toBeGreaterThan(0);
    await Promise.all(pair.map((relay) => relay.stop()));
  });

  it.each([
    ['a backlog it finds at start', 'before'],
    ['a burst that arrives while it is idle (one notification)', 'after'],
  ])(
    'keeps several batches in flight at once for %s, still publishing each event exactly once',
    async (_case, burst) => {
      let inFlight = 0;
      let mostInFlight = 0;
      const publisher = broker.createPublisher();
      const slow: Publisher = {
        publish: async (event, options) => {
          inFlight += 1;
          mostInFlight = Math.max(mostInFlight, inFlight);
          try {
            await sleep(30); // a slow broker: the next batches are claimed meanwhile
            await publisher.publish(event, options);
          } finally {
            inFlight -= 1;
          }
        },
      };
      const events = Array.from({ length: 300 }, () => userEvent());
      if (burst === 'before') await commit(...events);
      const relay = startRelay({ publisher: slow, batchSize: 20, concurrency: 3 });
      if (burst === 'after') {
        await sleep(300); // every loop has found nothing and sleeps
        await commit(...events);
      }

      await allArrived(events);
      await eventually(async () => (await outboxRows()) === 0 || undefined);
      await sleep(300);
      expect(events.filter((event) => deliveryCount(event.id) !== 1)).toEqual([]);
      // More than one batch's worth at a time: the batches overlapped.
      expect(mostInFlight).toBeGreaterThan(20);
      expect(mostInFlight).toBeLessThanOrEqual(60);
      await relay.stop();
    },
  );

  it('keeps running, and stops cleanly, while the database is unreachable', async () => {
    const unreachable = createPool({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      applicationName: 'outbox-relay-test',
      logger,
    });
    const messages: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) messages.push(JSON.parse(line).msg);
        done();
      },
    });
    const captured = createLogger({ service: 'outbox-test', destination });
    const relay = new OutboxRelay({
      pool: unreachable,
      schema: 'svc',
      publisher: broker.createPublisher(),
      logger: captured,
      pollIntervalMs: 50,
    });
    relay.start();
    await sleep(700);
    await relay.stop();
    await unreachable.end();
    expect(messages).toContain('outbox relay failed; retrying');
    expect(messages).toContain('outbox listener lost its database connection; polling meanwhile');
  });
});
