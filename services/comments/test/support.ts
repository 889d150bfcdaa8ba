import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair, tokenIssuer } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { type EventEnvelope, problemSchema, type UserSnapshot } from '@recipes/contracts';
import { createPool, migrate, type MigrationSet, type Pool } from '@recipes/db';
import { collectionDirectoryMigrations, contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import type { App } from '@recipes/http';
import { idempotencyMigrations } from '@recipes/idempotency';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher } from '@recipes/runtime';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { expect } from 'vitest';
import { buildApp } from '../src/app.js';
import { type CommentsConfig, commentsConfigSchema } from '../src/config.js';
import { createDirectories, directoryHandlers } from '../src/service.js';
import { type Owners, startOwners } from './owners.js';

/** As `src/server.ts` names them for runtime. */
export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
export const sharedMigrations: MigrationSet[] = [userDirectoryMigrations, contentDirectoryMigrations, collectionDirectoryMigrations];
const allMigrations = [outboxMigrations, idempotencyMigrations, ...sharedMigrations, { dir: migrationsDir, table: 'migrations' }];

export const silentLogger = createLogger({ service: 'comments', level: 'silent' });

/** A pool on the `comments` schema of `database`, migrated as runtime would. */
export async function migratedPool(database: TestDatabase): Promise<Pool> {
  await migrate({ databaseUrl: database.url, schema: 'comments', sets: allMigrations, logger: silentLogger });
  return createPool({ connectionString: database.url, schema: 'comments', applicationName: 'comments-test', logger: silentLogger });
}

export interface CommentsHarness {
  app: App;
  pool: Pool;
  config: CommentsConfig;
  owners: Owners;
  /** The key pair tokens are signed and verified with, for tests that forge their own. */
  keys: { publicKey: string; privateKey: string };
  /** A user registered a moment ago, and a token of theirs. */
  register(username: string): { user: UserSnapshot; token: string };
  /** Hands an event to this service's handlers, as its queue would. */
  deliver(event: EventEnvelope): Promise<void>;
  /** Another app on the same database and owners, e.g. with other limits. */
  anotherApp(env: Record<string, string>): Promise<App>;
  close(): Promise<void>;
}

/** The comments app on a fresh, migrated database of its own, with the owners' look-ups stood in for. */
export async function commentsHarness(env: Record<string, string> = {}): Promise<CommentsHarness> {
  const database = await createTestDatabase();
  const owners = await startOwners();
  const settings = (extra: Record<string, string>) =>
    parseConfig(commentsConfigSchema, {
      DATABASE_URL: database.url,
      USERS_INTERNAL_URL: owners.url,
      CONTENT_INTERNAL_URL: owners.url,
      COLLECTIONS_INTERNAL_URL: owners.url,
      ...extra,
    });
  const config = settings(env);
  const pool = await migratedPool(database);
  const keys = generateSigningKeyPair();
  const sign = tokenIssuer({ privateKey: keys.privateKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: 3600 });
  const directories = createDirectories(pool, config);
  const build = async (appConfig: CommentsConfig) => {
    const built = await buildApp({ config: appConfig, publicKey: keys.publicKey, pool, logger: silentLogger, directories });
    await built.ready();
    return built;
  };
  const app = await build(config);
  const extraApps: App[] = [];
  const handle = dispatcher(directoryHandlers(directories));

  return {
    app,
    pool,
    config,
    owners,
    keys,
    register(username) {
      const user = owners.register(username);
      return { user, token: sign(user) };
    },
    deliver: (event) => handle(event, silentLogger),
    async anotherApp(extra) {
      const another = await build(settings({ ...env, ...extra }));
      extraApps.push(another);
      return another;
    },
    close: async () => {
      await Promise.all([app, ...extraApps].map((each) => each.close()));
      await owners.close();
      await pool.end();
      await database.drop();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Asserts a problem+json answer with `status` (showing the body when it is another) and returns the problem. */
export function expectProblem(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number) {
  expect(response.statusCode, JSON.stringify(response.json())).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return problemSchema.parse(response.json());
}
