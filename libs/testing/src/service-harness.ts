import { generateSigningKeyPair, tokenIssuer, type TokenSubject } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { type EventEnvelope, problemSchema, type UnauthorizedReason } from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import type { App } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { dispatcher } from '@recipes/messaging';
import { type BackendConfig, composeService, migrationSetsOf, type ServiceDefinition } from '@recipes/runtime';
import { afterAll, beforeAll, expect } from 'vitest';
import { expectBearerChallenge } from './challenge.js';
import { createTestDatabase, reserveTestDatabase, type TestDatabase } from './index.js';

export { expectBearerChallenge, parseBearerChallenge } from './challenge.js';
export {
  type ReceivedMessage,
  type ServiceOnBroker,
  serviceOnBroker,
  type ServiceOnBrokerOptions,
} from './service-on-broker.js';

const silent = createLogger({ service: 'test', level: 'silent' });

type Migrated = Pick<ServiceDefinition, 'name' | 'migrations' | 'sharedMigrations'>;

/** Migrates the database at `url` as the runtime migrates `definition`'s schema. */
const migrateFor = (definition: Migrated, url: string) =>
  migrate({ databaseUrl: url, schema: definition.name, sets: migrationSetsOf(definition), logger: silent });

/** A pool on `definition`'s schema at `url`; it connects when first used. */
const poolFor = (definition: Migrated, url: string) =>
  createPool({
    connectionString: url,
    schema: definition.name,
    applicationName: `${definition.name}-test`,
    logger: silent,
  });

/** Ends `pool`, then drops `database`. */
const closing = (pool: Pool, database: TestDatabase) => async () => {
  await pool.end();
  await database.drop();
};

export interface MigratedDatabase {
  database: TestDatabase;
  pool: Pool;
  /** Ends the pool and drops the database. */
  close(): Promise<void>;
}

/** A fresh database with `definition`'s schema migrated as the runtime migrates it, and a pool on it. */
export async function migratedDatabase(definition: Migrated): Promise<MigratedDatabase> {
  const database = await createTestDatabase();
  await migrateFor(definition, database.url);
  const pool = poolFor(definition, database.url);
  return { database, pool, close: closing(pool, database) };
}

/**
 * A pool on a database of the test file's own (or the `describe` block's it is called in), made and
 * migrated as `migratedDatabase` does before the tests, ended and dropped after them. Handed out at once,
 * for the tests and the hooks declared after this call; it connects when first used.
 */
export function migratedPool(definition: Migrated): Pool {
  const database = reserveTestDatabase();
  const pool = poolFor(definition, database.url);
  beforeAll(async () => {
    await database.create();
    await migrateFor(definition, database.url);
  });
  afterAll(closing(pool, database));
  return pool;
}

export interface ServiceHarness<C, P> {
  app: App;
  pool: Pool;
  config: C;
  /** The service's domain, as its routes and handlers share it. */
  parts: P;
  database: TestDatabase;
  /** The key pair tokens are signed and checked with, for tests that forge their own. */
  keys: { publicKey: string; privateKey: string };
  /** A token for `user` (of a session, when it names one), signed as the users service signs them. */
  tokenFor(user: TokenSubject): string;
  /** Hands an event to the service's handlers, as its queue would. */
  deliver(event: EventEnvelope): Promise<void>;
  /**
   * Takes what the service published since the last call, as the broker would get it: what it wrote to its
   * outbox, oldest first, as its relay would send it, then the prompts it sent straight (`Prompts`).
   */
  published(): Promise<EventEnvelope[]>;
  /** Hands an event to what this instance hears on its own queue (its `instanceSubscription`). */
  hear(event: EventEnvelope): Promise<void>;
  /** Another app on the same database, parts and neighbours, with more settings (e.g. other limits). */
  anotherApp(env: Record<string, string>): Promise<App>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Settings beyond the database's URL, e.g. the stubs' URLs. */
  env?: Record<string, string>;
  /** What to close with the harness: the stubs it was given. */
  neighbours?: { close(): Promise<unknown> }[];
}

/**
 * A service as `runService` composes it (same definition, migrations, routes and handlers) on a fresh
 * database of its own, without a broker: events are handed to it with `deliver`.
 */
export async function serviceHarness<C extends BackendConfig, P>(
  definition: ServiceDefinition<C, P>,
  { env = {}, neighbours = [] }: HarnessOptions = {},
): Promise<ServiceHarness<C, P>> {
  const { database, pool, close: closeDatabase } = await migratedDatabase(definition);
  // What the service sent as prompts (`Prompts`), kept for the test to take with its outbox rows (`published`).
  const sentPrompts: EventEnvelope[] = [];
  const keys = generateSigningKeyPair();
  const settings = (extra: Record<string, string>) =>
    parseConfig(definition.configSchema, {
      DATABASE_URL: database.url,
      RESPONSE_VALIDATION: 'true',
      ...env,
      ...extra,
    }) as C;
  const config = settings({});
  const compose = async (appConfig: C) => {
    const composed = await composeService(definition, {
      config: appConfig,
      keys,
      pool,
      logger: silent,
      prompts: { send: async (event) => void sentPrompts.push(event) },
    });
    await composed.loadEndedSessions();
    await composed.app.ready();
    return composed;
  };
  const { app, parts, handlers, instanceSubscription } = await compose(config);
  const apps = [app];
  const handle = dispatcher(handlers);
  const hear = dispatcher(instanceSubscription.handlers);
  const sign = tokenIssuer({
    privateKey: keys.privateKey,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: 3600,
  });

  return {
    app,
    pool,
    config,
    parts,
    database,
    keys,
    tokenFor: ({ id, username, sessionId, issuedAt }) =>
      sign({
        id,
        username,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(issuedAt === undefined ? {} : { issuedAt }),
      }),
    deliver: (event) => handle(event, silent),
    async published() {
      const { rows } = await pool.query<{ payload: EventEnvelope }>(
        'WITH taken AS (DELETE FROM outbox RETURNING payload, created_at, id) SELECT payload FROM taken ORDER BY created_at, id',
      );
      return [...rows.map((row) => row.payload), ...sentPrompts.splice(0)];
    },
    hear: (event) => hear(event, silent),
    async anotherApp(extra) {
      const another = (await compose(settings(extra))).app;
      apps.push(another);
      return another;
    },
    async close() {
      await Promise.all(apps.map((each) => each.close()));
      await Promise.all(neighbours.map((each) => each.close()));
      await closeDatabase();
    },
  };
}

/**
 * What `make` gives for each of `names`, made one after another (each may announce itself by an event
 * the next relies on), as a tuple as long as `names`: e.g. the users a test file starts with.
 */
export async function inTurn<const N extends readonly string[], T>(
  names: N,
  make: (name: N[number]) => Promise<T>,
): Promise<{ -readonly [K in keyof N]: T }> {
  const made: T[] = [];
  for (const name of names) made.push(await make(name));
  return made as { -readonly [K in keyof N]: T };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Asserts a problem+json answer with `status` (showing the body when it is another) and returns the problem; a
 * 401's `WWW-Authenticate` challenge too, as its `reason` has it.
 */
export function expectProblem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(JSON.parse(response.body));
  if (status === 401) expectBearerChallenge(response.headers['www-authenticate'], problem.reason);
  return problem;
}

/** Asserts a 401 `UNAUTHORIZED` with `reason` (none: a wrong username or password) and its challenge; returns it. */
export function expectUnauthorized(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  reason: UnauthorizedReason | undefined,
) {
  const problem = expectProblem(response, 401);
  expect({ code: problem.code, reason: problem.reason }, response.body).toEqual({ code: 'UNAUTHORIZED', reason });
  return problem;
}
