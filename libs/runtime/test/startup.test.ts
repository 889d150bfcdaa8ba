import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { backendEnv, env, parseConfig, tokenEnv } from '@recipes/config';
import { createLogger } from '@recipes/logging';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineService, type RunningService, startBackendService } from '../src/index.js';

/** A service started while its database is away waits for it, instead of exiting. */
const exchange = uniqueName('runtime.startup');
let database: TestDatabase;
let proxy: TcpProxy;
let service: RunningService | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await createTcpProxy(database.url);
});
afterAll(async () => {
  try {
    await service?.close();
    await proxy?.close();
  } finally {
    await removeExchangeFamily(amqpUrl(), exchange, { services: ['starting'] });
    await database?.drop();
  }
});

describe('startBackendService with the database away', () => {
  it('waits for it, migrates once it is back, and serves', async () => {
    const migrationsDir = mkdtempSync(join(tmpdir(), 'runtime-startup-'));
    writeFileSync(
      join(migrationsDir, '001_things.sql'),
      '-- Up Migration\nCREATE TABLE things (id int PRIMARY KEY);\n',
    );
    const configSchema = z.object({ ...backendEnv, ...tokenEnv, PORT: env.port(0) });
    const config = parseConfig(configSchema, {
      DATABASE_URL: proxy.url,
      AMQP_URL: amqpUrl(),
      EVENTS_EXCHANGE: exchange,
    });
    const starting = defineService({
      name: 'starting',
      description: 'A service that starts while its database is away',
      configSchema,
      migrations: pathToFileURL(migrationsDir),
      publishes: [],
      parts: () => ({}),
      routes: async () => {},
    });
    const warnings: string[] = [];
    const logger = createLogger({
      service: 'starting',
      level: 'warn',
      destination: { write: (line: string) => void warnings.push(JSON.parse(line).msg) },
    });

    proxy.cut();
    const started = startBackendService(starting, {
      config,
      keys: { publicKey: generateSigningKeyPair().publicKey },
      logger,
    });
    // The barrier: it has met the outage at least once.
    while (!warnings.includes('the database is unavailable while migrating: migrating again once it is back'))
      await new Promise((resolve) => setTimeout(resolve, 20));
    proxy.restore();
    service = await started;

    const { rows } = await service.pool.query(
      "SELECT count(*)::int AS count FROM information_schema.tables WHERE table_schema = 'starting' AND table_name = 'things'",
    );
    expect(rows).toEqual([{ count: 1 }]);
    // Ready once the broker has connected too.
    await eventually(async () =>
      (await service!.app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200 ? true : undefined,
    );
  });
});
