import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair, tokenIssuer } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import {
  commentMentionCreated,
  createEvent,
  type EventData,
  type EventEnvelope,
  type MentionKind,
  newId,
  problemSchema,
  userCreated,
  type UserSnapshot,
  userTagged,
} from '@recipes/contracts';
import { createPool, migrate, type MigrationSet, type Pool } from '@recipes/db';
import { userDirectoryMigrations } from '@recipes/directory';
import type { App } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher } from '@recipes/runtime';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import Fastify from 'fastify';
import { expect } from 'vitest';
import { composeNotifications } from '../src/app.js';
import { type NotificationsConfig, notificationsConfigSchema } from '../src/config.js';

export const log = createLogger({ service: 'notifications', level: 'silent' });

export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** The sets the runtime migrates into the notifications schema, in its order. */
const notificationsMigrations: MigrationSet[] = [outboxMigrations, userDirectoryMigrations, { dir: migrationsDir, table: 'migrations' }];

export interface TestUser extends UserSnapshot {
  token: string;
}

/** Signs tokens as the users service would, with a key pair made for the test. */
export function tokenMaker(config: Pick<NotificationsConfig, 'JWT_ISSUER' | 'JWT_AUDIENCE'>) {
  const keys = generateSigningKeyPair();
  const sign = tokenIssuer({ privateKey: keys.privateKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: 3600 });
  return {
    publicKey: keys.publicKey,
    /** A user with a valid token, known to nobody until told. */
    user(username: string, avatarUrl: string | null = null): TestUser {
      const id = newId();
      return { id, username, avatarUrl, revision: 0, token: sign({ id, username }) };
    },
  };
}

export const snapshotOf = ({ id, username, avatarUrl, revision }: UserSnapshot): UserSnapshot => ({ id, username, avatarUrl, revision });

/** Stands in for the users service's `/internal/users/{id}` (the users-api pact checks the real one). */
async function usersStub() {
  const registered = new Map<string, UserSnapshot>();
  let lookups = 0;
  const server = Fastify();
  server.get<{ Params: { id: string } }>('/internal/users/:id', async (request, reply) => {
    lookups += 1;
    const user = registered.get(request.params.id);
    return user ? { user } : reply.code(404).send({ status: 404 });
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    register: (user: UserSnapshot) => void registered.set(user.id, user),
    lookups: () => lookups,
    close: () => server.close(),
  };
}

export interface NotificationsHarness {
  app: App;
  pool: Pool;
  database: TestDatabase;
  /** Applies an event as the broker would deliver it, through the service's real handlers. */
  deliver(event: EventEnvelope): Promise<void>;
  /** A user the read model knows, as if their user.created had arrived. */
  knownUser(username: string, avatarUrl?: string | null): Promise<TestUser>;
  /** A user registered a moment ago: only the users service knows them yet. */
  newUser(username: string): TestUser;
  /** Look-ups that reached the users service. */
  usersLookups(): number;
  close(): Promise<void>;
}

/** The notifications app and its handlers on a fresh, migrated database, with a stand-in users service. */
export async function notificationsHarness(): Promise<NotificationsHarness> {
  const database = await createTestDatabase();
  await migrate({ databaseUrl: database.url, schema: 'notifications', sets: notificationsMigrations, logger: log });
  const pool = createPool({ connectionString: database.url, schema: 'notifications', applicationName: 'notifications-test', logger: log });
  const users = await usersStub();
  const config = parseConfig(notificationsConfigSchema, { DATABASE_URL: database.url, USERS_INTERNAL_URL: users.url });
  const tokens = tokenMaker(config);
  const { app, handlers } = await composeNotifications({ config, publicKey: tokens.publicKey, pool, logger: log });
  await app.ready();
  const dispatch = dispatcher(handlers);
  const deliver = (event: EventEnvelope) => dispatch(event, log);

  return {
    app,
    pool,
    database,
    deliver,
    async knownUser(username, avatarUrl = null) {
      const user = tokens.user(username, avatarUrl);
      await deliver(createEvent(userCreated, snapshotOf(user), { producer: 'users', correlationId: 'test' }));
      return user;
    },
    newUser(username) {
      const user = tokens.user(username);
      users.register(snapshotOf(user));
      return user;
    },
    usersLookups: users.lookups,
    close: async () => {
      await app.close();
      await users.close();
      await pool.end();
      await database.drop();
    },
  };
}

type MentionData = EventData<typeof commentMentionCreated>;
type TagData = EventData<typeof userTagged>;

const targetOf: Record<MentionKind, MentionData['targetType']> = {
  recipe_comment: 'recipe',
  collection_comment: 'collection',
  post_comment: 'post',
};

/** A `comment.mention.created` as the comments service writes it; `overrides` change its data. */
export function mentionEvent(actor: { id: string }, mentioned: { id: string }, kind: MentionKind = 'recipe_comment', overrides: Partial<MentionData> = {}) {
  return createEvent(
    commentMentionCreated,
    {
      kind,
      mentionId: newId(),
      mentionedUserId: mentioned.id,
      actorId: actor.id,
      commentId: newId(),
      targetType: targetOf[kind],
      targetId: newId(),
      createdAt: new Date().toISOString(),
      ...overrides,
    },
    { producer: 'comments', correlationId: 'test-mention' },
  );
}

/** A `content.user.tagged` as the content service writes it. */
export function tagEvent(actor: { id: string }, tagged: { id: string }, contentType: TagData['contentType'] = 'recipe', overrides: Partial<TagData> = {}) {
  return createEvent(
    userTagged,
    { contentType, contentId: newId(), actorId: actor.id, taggedUserId: tagged.id, createdAt: new Date().toISOString(), ...overrides },
    { producer: 'content', correlationId: 'test-tag' },
  );
}

export const bearer = (user: { token: string }) => ({ authorization: `Bearer ${user.token}` });

/** Asserts a problem+json answer with `status` and returns the problem. */
export function expectProblem(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return problemSchema.parse(response.json());
}
