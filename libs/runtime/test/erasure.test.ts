import { createEvent, newId, NOBODY, notFound, userCreated, userDeleted } from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { idempotencyMigrations } from '@recipes/idempotency';
import { createLogger } from '@recipes/logging';
import { dispatcher, on } from '@recipes/messaging';
import { outboxMigrations } from '@recipes/outbox';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deleteRowsOf,
  droppingErased,
  eachIn,
  endedSessionsMigrations,
  type ErasureStep,
  userDeletedHandler,
} from '../src/index.js';

/**
 * The erasure every service runs on `user.deleted` (docs/api.md §11.2), on a real schema: in batches, each
 * its own transaction, so that a delivery cut short is finished by the next one; one confirmation; and
 * nothing about the user taken in after.
 */
const log = createLogger({ service: 'erasure-test', level: 'silent' });
let database: TestDatabase;
let pool: Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({
    databaseUrl: database.url,
    schema: 'content',
    sets: [outboxMigrations, idempotencyMigrations, endedSessionsMigrations],
    logger: log,
  });
  pool = createPool({
    connectionString: database.url,
    schema: 'content',
    applicationName: 'erasure-test',
    logger: log,
  });
  await pool.query(
    'CREATE TABLE erased_users (id_hash bytea PRIMARY KEY, erased_at timestamptz NOT NULL DEFAULT now())',
  );
  await pool.query('CREATE TABLE things (id serial PRIMARY KEY, owner_id uuid NOT NULL)');
  await pool.query('CREATE TABLE people (id uuid PRIMARY KEY, username text NOT NULL)');
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

const count = async (sql: string, params: unknown[]) =>
  (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n;
const deletion = (userId: string, sessionIds: string[] = []) =>
  createEvent(
    userDeleted,
    {
      userId,
      deletedAt: new Date().toISOString(),
      sessionIds,
      tokensExpireBy: new Date(Date.now() + 900_000).toISOString(),
    },
    { producer: 'users', correlationId: 'test' },
  );

describe('eraseUser', () => {
  it('erases 1,000 rows in batches, goes on after a delivery cut short, and confirms once', async () => {
    const userId = newId();
    const other = newId();
    await pool.query('INSERT INTO things (owner_id) SELECT $1 FROM generate_series(1, 1000)', [userId]);
    await pool.query('INSERT INTO things (owner_id) VALUES ($1)', [other]);
    const batches: number[] = [];
    let crashAfter: number | undefined = 2;
    const counted: ErasureStep = async (id, limit, correlationId) => {
      if (crashAfter !== undefined && batches.length === crashAfter) throw new Error('the process died');
      const done = await deleteRowsOf(pool, 'things', 'owner_id')(id, limit, correlationId);
      batches.push(done);
      return done;
    };
    const handle = dispatcher([userDeletedHandler({ pool, service: 'content', steps: [counted], batch: 200 })]);
    const event = deletion(userId);

    await expect(handle(event, log)).rejects.toThrow('the process died');
    expect(await count('things WHERE owner_id = $1', [userId])).toBe(600);
    crashAfter = undefined;
    await handle(event, log);
    await handle(event, log);
    expect(await count('things WHERE owner_id = $1', [userId])).toBe(0);
    expect(await count('things WHERE owner_id = $1', [other])).toBe(1);
    expect(Math.max(...batches)).toBe(200);
    expect(await count(`outbox WHERE type = 'content.user.erased' AND payload->'data'->>'userId' = $1`, [userId])).toBe(
      1,
    );
  });

  it('goes on past a thing another deletion took meanwhile, and confirms', async () => {
    const userId = newId();
    const { rows } = await pool.query<{ id: number }>(
      'INSERT INTO things (owner_id) SELECT $1 FROM generate_series(1, 5) RETURNING id',
      [userId],
    );
    const ids = rows.map((row) => String(row.id));
    // The deletion path of one thing, as a service's: not found once it is gone.
    const remove = async (id: string) => {
      const { rowCount } = await pool.query('DELETE FROM things WHERE id = $1', [id]);
      if (rowCount === 0) throw notFound('Thing not found');
    };
    // Another deletion takes the third between the step's look-up and its turn.
    const step: ErasureStep = async (id, limit) => {
      const { rows: found } = await pool.query<{ id: number }>('SELECT id FROM things WHERE owner_id = $1 LIMIT $2', [
        id,
        limit,
      ]);
      await pool.query('DELETE FROM things WHERE id = $1', [ids[2]]);
      return eachIn(
        found.map((row) => String(row.id)),
        remove,
      );
    };
    const handle = dispatcher([userDeletedHandler({ pool, service: 'content', steps: [step], batch: 200 })]);

    await handle(deletion(userId), log);
    expect(await count('things WHERE owner_id = $1', [userId])).toBe(0);
    expect(await count(`outbox WHERE type = 'content.user.erased' AND payload->'data'->>'userId' = $1`, [userId])).toBe(
      1,
    );
    // Every one found gone gives none done, so that a step cannot loop on ids its path keeps finding gone.
    const gone = () => Promise.reject(notFound('Thing not found'));
    await expect(eachIn(['1', '2'], gone)).resolves.toBe(0);
    await expect(eachIn(['1', '2'], (id) => (id === '1' ? gone() : Promise.resolve()))).resolves.toBe(2);
    // Any other failure still fails the delivery, to be tried again.
    await expect(eachIn(['1'], () => Promise.reject(new Error('the database went away')))).rejects.toThrow(
      'the database went away',
    );
  });

  it('keeps the ends of the user’s sessions by session alone', async () => {
    const userId = newId();
    const [earlier, now] = [newId(), newId()];
    await pool.query(
      `INSERT INTO ended_sessions (session_id, user_id, forget_after) VALUES ($1, $2, now() + interval '1 hour')`,
      [earlier, userId],
    );
    await pool.query(
      `INSERT INTO sessions_not_before (user_id, not_before, forget_after) VALUES ($1, now(), now() + interval '1 hour')`,
      [userId],
    );
    await dispatcher([userDeletedHandler({ pool, service: 'content', steps: [] })])(deletion(userId, [now]), log);
    const { rows } = await pool.query(
      'SELECT session_id, user_id FROM ended_sessions WHERE session_id = ANY($1::uuid[]) ORDER BY session_id',
      [[earlier, now]],
    );
    expect(rows).toEqual([
      { session_id: earlier, user_id: NOBODY },
      { session_id: now, user_id: NOBODY },
    ]);
    expect(await count('sessions_not_before WHERE user_id = $1', [userId])).toBe(0);
  });

  it('drops an event about an erased user that comes after the erasure, and takes in others', async () => {
    const [erased, kept] = [newId(), newId()];
    const remember = on(userCreated, async (user) => {
      await pool.query('INSERT INTO people (id, username) VALUES ($1, $2)', [user.id, user.username]);
    });
    const handle = dispatcher(
      droppingErased(pool, [remember, userDeletedHandler({ pool, service: 'content', steps: [] })]),
    );
    await handle(deletion(erased), log);
    for (const id of [erased, kept])
      await handle(
        createEvent(
          userCreated,
          { id, username: `late_${id.slice(-6)}`, avatarUrl: null, revision: 0 },
          { producer: 'users', correlationId: 'c' },
        ),
        log,
      );
    expect((await pool.query('SELECT id FROM people')).rows).toEqual([{ id: kept }]);
  });
});
