import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig, backendEnv, env, tokenEnv } from '@recipes/config';
import { createEvent, newId, userCreated } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { on } from '@recipes/messaging';
import { enqueue, handleOnce } from '@recipes/outbox';
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

/** A tiny service that keeps a read model of users, started exactly as real services start. */
let service: RunningService;
let database: TestDatabase;
const exchange = uniqueName('runtime');
let handled = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  const migrationsDir = mkdtempSync(join(tmpdir(), 'runtime-migrations-'));
  writeFileSync(
    join(migrationsDir, '001_known_users.sql'),
    '-- Up Migration\nCREATE TABLE known_users (id uuid PRIMARY KEY, username text NOT NULL);\n',
  );
  const configSchema = z.object({ ...backendEnv, ...tokenEnv, PORT: env.port(0) });
  const config = parseConfig(configSchema, {
    DATABASE_URL: database.url,
    AMQP_URL: amqpUrl(),
    EVENTS_EXCHANGE: exchange,
    EVENT_MAX_ATTEMPTS: '2',
  });
  const directory = defineService({
    name: 'directory',
    description: 'A tiny read model of users',
    configSchema,
    migrations: pathToFileURL(migrationsDir),
    publishes: [],
    parts: ({ pool }) => ({ pool }),
    async routes(app, { pool }) {
      // A write that announces itself, as a real route would.
      app.post('/api/announce', async (request) => {
        const event = createEvent(
          userCreated,
          { id: newId(), username: 'announced', avatarUrl: null, revision: 0 },
          { producer: 'users', correlationId: request.id },
        );
        await enqueue(pool, event);
        return { id: event.data.id };
      });
    },
    handlers: ({ pool }) => [
      on(userCreated, async (user, event) => {
        await handleOnce(pool, event, async (tx) => {
          handled += 1;
          await tx.query('INSERT INTO known_users (id, username) VALUES ($1, $2)', [user.id, user.username]);
        });
      }),
    ],
  });
  service = await startBackendService(directory, {
    config,
    keys: { publicKey: generateSigningKeyPair().publicKey },
    logger: createLogger({ service: 'directory', level: 'silent' }),
  });
});

afterAll(async () => {
  try {
    await service?.close();
  } finally {
    await removeExchangeFamily(amqpUrl(), exchange, { services: ['directory'] });
    await database?.drop();
  }
});

async function knownUsers(): Promise<string[]> {
  const { rows } = await service.pool.query<{ username: string }>('SELECT username FROM known_users ORDER BY username');
  return rows.map((row) => row.username);
}

describe('startBackendService', () => {
  it('migrates its own schema next to the outbox, idempotency-key and ended-session tables', async () => {
    const { rows } = await service.pool.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'directory' ORDER BY table_name",
    );
    expect(rows.map((row) => row.table_name)).toEqual([
      'ended_sessions',
      'ended_sessions_migrations',
      'idempotency_keys',
      'idempotency_migrations',
      'known_users',
      'migrations',
      'outbox',
      'outbox_migrations',
      'processed_events',
      'sessions_not_before',
    ]);
  });

  it('is ready once database and broker answer', async () => {
    await eventually(async () =>
      (await service.app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200 ? true : undefined,
    );
  });

  it('relays what a route enqueues to its own consumer, and applies a redelivered event once', async () => {
    const response = await service.app.inject({ method: 'POST', url: '/api/announce' });
    expect(response.statusCode).toBe(200);
    await eventually(async () => ((await knownUsers()).includes('announced') ? true : undefined));

    // The same event twice, as a redelivery by the broker would bring it.
    const event = createEvent(
      userCreated,
      { id: newId(), username: 'twice', avatarUrl: null, revision: 0 },
      { producer: 'test', correlationId: 'c' },
    );
    const admin = await brokerAdmin(amqpUrl());
    await admin.publish(exchange, [event, event]);
    await admin.close();
    await eventually(async () => ((await knownUsers()).includes('twice') ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await knownUsers()).toEqual(['announced', 'twice']);
    expect(handled).toBe(2);
  });
});
