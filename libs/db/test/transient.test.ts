import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransientDatabaseError } from '../src/index.js';

/** Which errors of a real server are worth trying again: the database away or busy, never the work at fault. */
let database: TestDatabase;
let holder: pg.Client;

const connected = async () => {
  const client = new pg.Client({ connectionString: database.url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
};
const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => expect.fail('should have failed'),
    (error: unknown) => error,
  );

beforeAll(async () => {
  database = await createTestDatabase();
  holder = await connected();
  await holder.query('CREATE TABLE held (id int PRIMARY KEY)');
});
afterAll(async () => {
  await holder?.end();
  await database?.drop();
});

describe('isTransientDatabaseError', () => {
  it('takes a connection the server ended, also wrapped as node-pg-migrate wraps it, for transient', async () => {
    const client = await connected();
    const ended = await failureOf(client.query('SELECT pg_terminate_backend(pg_backend_pid())'));
    expect((ended as { code?: string }).code).toBe('57P01');
    expect(isTransientDatabaseError(ended)).toBe(true);
    // The next query on the broken client, and the error that keeps only the text.
    const broken = await failureOf(client.query('SELECT 1'));
    expect(isTransientDatabaseError(broken)).toBe(true);
    expect(isTransientDatabaseError(new Error(`Unable to ensure migrations table: ${(broken as Error).stack}`))).toBe(
      true,
    );
    expect(isTransientDatabaseError(new Error('migrating failed', { cause: ended }))).toBe(true);
  });

  it('takes a lock wait over its limit and a deadlock for transient', async () => {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE held IN ACCESS EXCLUSIVE MODE');
    const waiting = await connected();
    try {
      await waiting.query("SET lock_timeout = '50ms'");
      const timedOut = await failureOf(waiting.query('SELECT * FROM held'));
      expect((timedOut as { code?: string }).code).toBe('55P03');
      expect(isTransientDatabaseError(timedOut)).toBe(true);
    } finally {
      await holder.query('ROLLBACK');
      await waiting.end();
    }
    expect(isTransientDatabaseError(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('could not serialize'), { code: '40001' }))).toBe(true);
  });

  it('takes a refused connection for transient, and the work at fault for not', async () => {
    const refused = await failureOf(
      new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none' }).connect(),
    );
    expect(isTransientDatabaseError(refused)).toBe(true);
    const syntax = await failureOf(holder.query('SELEC 1'));
    expect(isTransientDatabaseError(syntax)).toBe(false);
    const duplicate = await failureOf(holder.query('INSERT INTO held VALUES (1), (1)'));
    expect(isTransientDatabaseError(duplicate)).toBe(false);
    expect(isTransientDatabaseError(new Error('no handler for user.created version 9'))).toBe(false);
  });
});
