import { randomUUID } from 'node:crypto';
import { EndedSessions } from '@recipes/auth';
import { createEvent, userSessionEnded } from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { dispatcher } from '@recipes/messaging';
import { createTestDatabase, eventually, type TestDatabase } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endedSessionsMigrations, sessionEnds } from '../src/index.js';

/**
 * The ended sessions every service keeps (docs/api.md §11.1): two instances of a consumer of
 * `user.session.ended` on one schema, as two processes of one service would be.
 */
const logger = createLogger({ service: 'ended-sessions-test', level: 'silent' });
let database: TestDatabase;
let pool: Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({ databaseUrl: database.url, schema: 'collections', sets: [endedSessionsMigrations], logger });
  pool = createPool({
    connectionString: database.url,
    schema: 'collections',
    applicationName: 'ended-sessions-test',
    logger,
  });
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

const end = (overrides: { sessionIds?: string[]; notBefore?: string | null; tokensExpireBy?: string } = {}) => {
  const data = {
    userId: randomUUID(),
    sessionIds: [randomUUID()],
    notBefore: null,
    reason: 'logout' as const,
    endedAt: new Date().toISOString(),
    tokensExpireBy: new Date(Date.now() + 900_000).toISOString(),
    ...overrides,
  };
  return createEvent(userSessionEnded, data, { producer: 'users', correlationId: 'test' });
};
const token = (event: ReturnType<typeof end>, issuedAt = Math.floor(Date.now() / 1000)) => ({
  userId: event.data.userId,
  sessionId: event.data.sessionIds[0]!,
  issuedAt,
});

describe('the ended sessions of a service', () => {
  it(
    'kept by the instance that takes the event from the durable queue, are ' +
      'learnt by another at its next catch-up, and by a new one at its start',
    async () => {
      const [storeA, storeB] = [new EndedSessions(), new EndedSessions()];
      const [a, b] = [
        sessionEnds('collections', pool, storeA, logger),
        sessionEnds('collections', pool, storeB, logger),
      ];
      await Promise.all([a.load(), b.load()]);
      b.start();
      try {
        const event = end();
        const started = performance.now();
        await dispatcher(a.durable)(event, logger);
        expect(storeA.refuses(token(event))).toBe(true);
        // B never heard it on its own queue (its link was down, say): it reads it from the table.
        await eventually(async () => (storeB.refuses(token(event)) ? true : undefined), 1_500, 20);
        // Its catch-up runs each second.
        expect(performance.now() - started).toBeLessThan(1_500);
        const fresh = new EndedSessions();
        await sessionEnds('collections', pool, fresh, logger).load();
        expect(fresh.refuses(token(event))).toBe(true);
      } finally {
        b.stop();
      }
    },
  );

  it('keeps a not-before time, and forgets what no token can need any more', async () => {
    const all = end({ notBefore: new Date().toISOString() });
    const past = end({ tokensExpireBy: new Date(Date.now() - 1_000).toISOString() });
    const store = new EndedSessions();
    const ends = sessionEnds('collections', pool, store, logger);
    await dispatcher(ends.durable)(all, logger);
    await dispatcher(ends.durable)(past, logger);
    const fresh = new EndedSessions();
    await sessionEnds('collections', pool, fresh, logger).load();
    expect(
      fresh.refuses({ userId: all.data.userId, sessionId: randomUUID(), issuedAt: Math.floor(Date.now() / 1000) - 5 }),
    ).toBe(true);
    expect(fresh.refuses(token(past))).toBe(false);
  });

  it('is none of its business where the catalogue does not list the service as a consumer: no durable handler there', () => {
    expect(sessionEnds('users', pool, new EndedSessions(), logger).durable).toEqual([]);
    expect(sessionEnds('users', pool, new EndedSessions(), logger).heard).toHaveLength(1);
  });
});
