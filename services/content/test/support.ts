import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair, tokenIssuer } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { createEvent, newId, problemSchema, userCreated, type UserSnapshot } from '@recipes/contracts';
import { createPool, type MigrationSet, migrate, type Pool } from '@recipes/db';
import { userDirectoryMigrations } from '@recipes/directory';
import type { App } from '@recipes/http';
import { idempotencyMigrations } from '@recipes/idempotency';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher, type EventHandler } from '@recipes/runtime';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { expect } from 'vitest';
import { composeContent } from '../src/app.js';
import { type ContentConfig, contentConfigSchema } from '../src/config.js';
import { type UsersStub, usersStub } from './users-stub.js';

export const log = createLogger({ service: 'content', level: 'silent' });

/** The sets the runtime migrates into the content schema, in its order. */
export const contentMigrations: MigrationSet[] = [
  outboxMigrations,
  idempotencyMigrations,
  userDirectoryMigrations,
  { dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'migrations' },
];

export interface ContentDatabase {
  database: TestDatabase;
  pool: Pool;
  close(): Promise<void>;
}

/** A fresh database of its own with the content schema migrated, and a pool on it. */
export async function contentDatabase(): Promise<ContentDatabase> {
  const database = await createTestDatabase();
  await migrate({ databaseUrl: database.url, schema: 'content', sets: contentMigrations, logger: log });
  const pool = createPool({ connectionString: database.url, schema: 'content', applicationName: 'content-test', logger: log });
  return {
    database,
    pool,
    close: async () => {
      await pool.end();
      await database.drop();
    },
  };
}

export interface TestUser extends UserSnapshot {
  token: string;
}

export interface ContentHarness extends ContentDatabase {
  app: App;
  config: ContentConfig;
  handlers: EventHandler[];
  usersService: UsersStub;
  /** Applies an event as the broker would deliver it. */
  deliver: (event: Parameters<ReturnType<typeof dispatcher>>[0]) => Promise<void>;
  /** A user the read model already knows, as if their user.created had arrived. */
  knownUser(username: string, avatarUrl?: string | null): Promise<TestUser>;
  /** A user registered a moment ago: only the users service knows them yet. */
  newUser(username: string): TestUser;
  /** A well-signed token for a user nobody knows. */
  stranger(username: string): TestUser;
  bearer(user: { token: string }): { authorization: string };
}

/** The content app and its handlers on a fresh database, with a stand-in users service. */
export async function contentHarness(): Promise<ContentHarness> {
  const db = await contentDatabase();
  const usersService = await usersStub();
  const keys = generateSigningKeyPair();
  const config = parseConfig(contentConfigSchema, { DATABASE_URL: db.database.url, USERS_INTERNAL_URL: usersService.url });
  const { app, handlers } = await composeContent({ config, publicKey: keys.publicKey, pool: db.pool, logger: log });
  await app.ready();

  const sign = tokenIssuer({ privateKey: keys.privateKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: 3600 });
  const stranger = (username: string): TestUser => {
    const user = { id: newId(), username, avatarUrl: null, revision: 0 };
    return { ...user, token: sign({ id: user.id, username }) };
  };
  const dispatch = dispatcher(handlers);
  const deliver: ContentHarness['deliver'] = (event) => dispatch(event, log);

  return {
    ...db,
    app,
    config,
    handlers,
    usersService,
    deliver,
    async knownUser(username, avatarUrl = null) {
      const user = { ...stranger(username), avatarUrl };
      const { token: _token, ...snapshot } = user;
      await deliver(createEvent(userCreated, snapshot, { producer: 'users', correlationId: 'test' }));
      return user;
    },
    newUser(username) {
      const user = stranger(username);
      const { token: _token, ...snapshot } = user;
      usersService.register(snapshot);
      return user;
    },
    stranger,
    bearer: (user) => ({ authorization: `Bearer ${user.token}` }),
    close: async () => {
      await app.close();
      await usersService.close();
      await db.close();
    },
  };
}

/** The payloads of the events waiting in the outbox, oldest first. */
export async function outboxEvents(pool: Pool, type?: string): Promise<Array<{ type: string; correlationId: string; data: any }>> {
  const { rows } = await pool.query(
    `SELECT payload FROM outbox ${type ? 'WHERE type = $1' : ''} ORDER BY created_at, id`,
    type ? [type] : [],
  );
  return rows.map((row) => row.payload);
}

/** Asserts a problem+json answer with `status` and returns the problem. */
export function expectProblem(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return problemSchema.parse(response.json());
}
