import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair, tokenIssuer } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import {
  type ContentSnapshot,
  type ContentType,
  createEvent,
  type EventDefinition,
  newId,
  postCreated,
  problemSchema,
  recipeCreated,
  userCreated,
  type UserSnapshot,
} from '@recipes/contracts';
import { createPool, migrate, type MigrationSet, type Pool } from '@recipes/db';
import { contentDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import type { App } from '@recipes/http';
import { idempotencyMigrations } from '@recipes/idempotency';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher } from '@recipes/runtime';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { composeCollections } from '../src/app.js';
import { type CollectionsConfig, collectionsConfigSchema } from '../src/config.js';

const log = createLogger({ service: 'collections', level: 'silent' });

/** Every migration the service runs, in the order `startBackendService` runs them. */
export const collectionsMigrations: MigrationSet[] = [
  outboxMigrations,
  idempotencyMigrations,
  userDirectoryMigrations,
  contentDirectoryMigrations,
  { dir: fileURLToPath(new URL('../migrations', import.meta.url)), table: 'migrations' },
];

/** A fresh database of its own, migrated as the service migrates its schema. */
export async function migratedDatabase(): Promise<{ database: TestDatabase; pool: Pool }> {
  const database = await createTestDatabase();
  await migrate({ databaseUrl: database.url, schema: 'collections', sets: collectionsMigrations, logger: log });
  const pool = createPool({ connectionString: database.url, schema: 'collections', applicationName: 'collections-test', logger: log });
  return { database, pool };
}

/**
 * Stands in for the users and content services' internal look-ups, which the directories use for what
 * events have not brought yet. Tests put users and content here to make them exist "a moment ago".
 */
async function owningServices() {
  const users = new Map<string, UserSnapshot>();
  const content = new Map<string, ContentSnapshot & { contentType: ContentType }>();
  const server: FastifyInstance = Fastify();
  server.get<{ Params: { id: string } }>('/internal/users/:id', async (request, reply) => {
    const user = users.get(request.params.id);
    return user ? { user } : reply.code(404).send({ status: 404 });
  });
  server.get<{ Params: { kind: string; id: string } }>('/internal/content/:kind/:id', async (request, reply) => {
    const found = content.get(request.params.id);
    if (!found || `${found.contentType}s` !== request.params.kind) return reply.code(404).send({ status: 404 });
    const { contentType: _contentType, ...snapshot } = found;
    return { content: snapshot };
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return { users, content, url, close: () => server.close() };
}

export interface TestUser {
  user: UserSnapshot;
  token: string;
  headers: { authorization: string };
}

export type CollectionsHarness = Awaited<ReturnType<typeof collectionsHarness>>;

/** The collections app on a fresh, migrated database, its event handlers and its neighbours at hand. */
export async function collectionsHarness(env: Record<string, string> = {}) {
  const { database, pool } = await migratedDatabase();
  const upstream = await owningServices();
  const keys = generateSigningKeyPair();
  const config: CollectionsConfig = parseConfig(collectionsConfigSchema, {
    DATABASE_URL: database.url,
    USERS_INTERNAL_URL: upstream.url,
    CONTENT_INTERNAL_URL: upstream.url,
    ...env,
  });
  const { app, handlers } = await composeCollections({ config, publicKey: keys.publicKey, pool, logger: log });
  await app.ready();
  const dispatch = dispatcher(handlers);
  const sign = tokenIssuer({ privateKey: keys.privateKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: 3600 });

  /** Delivers an event to the service's real handlers, as the broker would. */
  async function publish<D extends EventDefinition>(definition: D, data: unknown): Promise<void> {
    await dispatch(createEvent(definition, data as never, { producer: definition.producer, correlationId: 'test' }), log);
  }

  return {
    app: app as App,
    pool,
    database,
    config,
    upstream,
    publish,

    /** A user the users service knows; the collections service hears of them through `user.created` unless `quietly`. */
    async user(username: string, { quietly = false } = {}): Promise<TestUser> {
      const user: UserSnapshot = { id: newId(), username, avatarUrl: null, revision: 0 };
      upstream.users.set(user.id, user);
      if (!quietly) await publish(userCreated, user);
      const token = sign({ id: user.id, username });
      return { user, token, headers: { authorization: `Bearer ${token}` } };
    },

    /** A recipe or post by `authorId`, announced by its created event unless `quietly` (then only look-ups find it). */
    async content(
      contentType: ContentType,
      authorId: string,
      { quietly = false, ...overrides }: Partial<ContentSnapshot> & { quietly?: boolean } = {},
    ): Promise<ContentSnapshot> {
      const snapshot: ContentSnapshot = {
        id: newId(),
        authorId,
        title: `A ${contentType}`,
        coverImageUrl: null,
        deleted: false,
        revision: 0,
        createdAt: new Date().toISOString(),
        ...overrides,
      };
      upstream.content.set(snapshot.id, { ...snapshot, contentType });
      if (!quietly) await publish(contentType === 'recipe' ? recipeCreated : postCreated, snapshot);
      return snapshot;
    },

    async close() {
      await app.close();
      await upstream.close();
      await pool.end();
      await database.drop();
    },
  };
}

/** Asserts a problem+json answer with this status, and returns the problem. */
export function expectProblem(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return problemSchema.parse(response.json());
}

/** The totals the triggers keep, next to the same totals counted from scratch: they must always agree. */
export async function totalsAndRecount(pool: Pool) {
  const kept = await pool.query(
    `SELECT user_id, content_type, standalone, count FROM saved_item_totals WHERE count > 0 ORDER BY 1, 2, 3`,
  );
  const counted = await pool.query(
    `SELECT user_id, content_type, collection_count = 0 AS standalone, count(*)::int AS count
       FROM saved_items GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  const items = await pool.query(
    `SELECT (SELECT count(*)::int FROM collection_items ci WHERE ci.saved_item_id = s.id) AS counted, s.collection_count AS kept
       FROM saved_items s`,
  );
  const collections = await pool.query(
    `SELECT (SELECT count(*)::int FROM collection_items ci WHERE ci.collection_id = c.id) AS counted, c.item_count AS kept
       FROM collections c`,
  );
  return {
    kept: { totals: kept.rows, items: items.rows.map((r) => r.kept), collections: collections.rows.map((r) => r.kept) },
    counted: { totals: counted.rows, items: items.rows.map((r) => r.counted), collections: collections.rows.map((r) => r.counted) },
  };
}
