import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { backendEnv, env, parseConfig, tokenEnv } from '@recipes/config';
import { createEvent, type EventEnvelope, newId, userCreated, userUpdated } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { on } from '@recipes/messaging';
import {
  amqpUrl,
  brokerAdmin,
  createTestDatabase,
  eventually,
  removeExchangeFamily,
  type TestDatabase,
  uniqueName,
} from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineService, type RunningService, startBackendService } from '../src/index.js';

/**
 * Two instances of one tiny service, started exactly as real services start: it consumes `user.created`
 * on its durable queue, and each instance hears `user.updated` on a subscription of its own.
 */
const SERVICE = 'listener';
const exchange = uniqueName('runtime.instances');
const durableQueue = `${exchange}.${SERVICE}`;

/** Who handled what: the instance (1 or 2) and the event id. */
type Handled = { instance: number; id: string };
const durable: Handled[] = [];
const subscribed: Handled[] = [];

let database: TestDatabase;
let admin: Awaited<ReturnType<typeof brokerAdmin>>;
const instances: RunningService[] = [];

const snapshot = () => ({ id: newId(), username: 'ada', avatarUrl: null, revision: 0 });
const created = () => createEvent(userCreated, snapshot(), { producer: 'users', correlationId: `c-${newId()}` });
const updated = () => createEvent(userUpdated, snapshot(), { producer: 'users', correlationId: `c-${newId()}` });
const timesHandled = (list: Handled[], id: string, instance?: number) =>
  list.filter((entry) => entry.id === id && (instance === undefined || entry.instance === instance)).length;

beforeAll(async () => {
  database = await createTestDatabase();
  admin = await brokerAdmin(amqpUrl());
  const migrationsDir = mkdtempSync(join(tmpdir(), 'runtime-instances-'));
  writeFileSync(
    join(migrationsDir, '001_nothing.sql'),
    '-- Up Migration\nCREATE TABLE nothing (id int PRIMARY KEY);\n',
  );
  const configSchema = z.object({ ...backendEnv, ...tokenEnv, PORT: env.port(0) });
  const config = parseConfig(configSchema, {
    DATABASE_URL: database.url,
    AMQP_URL: amqpUrl(),
    EVENTS_EXCHANGE: exchange,
    EVENT_MAX_ATTEMPTS: '2',
  });
  let started = 0;
  const listener = defineService({
    name: SERVICE,
    description: 'Hears users, durably and per instance',
    configSchema,
    migrations: pathToFileURL(migrationsDir),
    publishes: [],
    // Parts are made once per instance: they say which instance handled an event.
    parts: () => ({ instance: ++started }),
    async routes() {},
    handlers: ({ instance }) => [
      on(userCreated, async (_user, event) => {
        durable.push({ instance, id: event.id });
      }),
    ],
    instanceSubscription: ({ instance }) => ({
      handlers: [
        on(userUpdated, async (_user, event) => {
          subscribed.push({ instance, id: event.id });
        }),
      ],
    }),
  });
  // One after the other: both migrate the same schema on start.
  for (let i = 0; i < 2; i += 1) {
    instances.push(
      await startBackendService(listener, {
        config,
        keys: { publicKey: generateSigningKeyPair().publicKey },
        logger: createLogger({ service: SERVICE, level: 'silent' }),
      }),
    );
  }
});

afterAll(async () => {
  try {
    await Promise.all(instances.map((instance) => instance.close()));
    await admin?.close();
  } finally {
    await removeExchangeFamily(amqpUrl(), exchange, { services: [SERVICE] });
    await database?.drop();
  }
});

describe('instanceSubscription', () => {
  it('gives every instance each event through its own subscription, while the durable handlers get theirs once between them', async () => {
    // Both instances consume the one durable queue, as competing consumers.
    expect(await admin.consumerCount(durableQueue)).toBe(2);

    const durableEvents = [created(), created(), created(), created()];
    const heardByAll = updated();
    const last = updated();
    // One batch, in this order: each subscription queue delivers in order, so once `last` is heard by an
    // instance, a copy of anything before it routed to that queue (a user.created) would have been heard too.
    await admin.publish(exchange, [...durableEvents, heardByAll, last]);

    await eventually(async () => durableEvents.every((event) => timesHandled(durable, event.id) > 0) || undefined);
    await eventually(
      async () => (timesHandled(subscribed, last.id, 1) > 0 && timesHandled(subscribed, last.id, 2) > 0) || undefined,
    );

    for (const event of durableEvents)
      expect(timesHandled(durable, event.id), `durable handling of ${event.id}`).toBe(1);
    for (const event of [heardByAll, last]) {
      expect(timesHandled(subscribed, event.id, 1), `instance 1 hearing ${event.id}`).toBe(1);
      expect(timesHandled(subscribed, event.id, 2), `instance 2 hearing ${event.id}`).toBe(1);
    }
    // Neither path took the other's events.
    expect(durable.filter((entry) => entry.id === heardByAll.id || entry.id === last.id)).toEqual([]);
    expect(subscribed.filter((entry) => durableEvents.some((event) => event.id === entry.id))).toEqual([]);
  });

  it('leaves the durable queue unbound from the types only the instances hear', async () => {
    // Stopped, the instances no longer take from the durable queue, so whatever is routed to it stays there.
    await Promise.all(instances.splice(0).map((instance) => instance.close()));
    expect(await admin.consumerCount(durableQueue)).toBe(0);

    const notForTheQueue = updated();
    const forTheQueue = created();
    await admin.publish(exchange, [notForTheQueue, forTheQueue]);
    // The queue is first in, first out: the user.created comes out first only if the user.updated never went in.
    const parked: EventEnvelope[] = [];
    await eventually(async () => {
      const message = await admin.channel.get(durableQueue, { noAck: true });
      if (message) parked.push(JSON.parse(message.content.toString()) as EventEnvelope);
      return parked.some((event) => event.id === forTheQueue.id) || undefined;
    });
    expect(parked.map((event) => event.type)).toEqual(['user.created']);
  });
});
