import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, eventually, type TestDatabase } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPool,
  isDatabaseReachable,
  migrate,
  sqlState,
  UNIQUE_VIOLATION,
  withTransaction,
  withTransactionOpenedBy,
  type Pool,
} from '../src/index.js';

const silent = { info: () => undefined, warn: () => undefined };

function migrationDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

describe('db', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createPool({ connectionString: database.url, applicationName: 'db-test', logger: silent });
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('migrates only its own schema, once, with several sets in order', async () => {
    const first = migrationDir({ '001_things.sql': '-- Up Migration\nCREATE TABLE things (id int PRIMARY KEY);\n' });
    const second = migrationDir({
      '001_more.sql': '-- Up Migration\nCREATE TABLE more_things (id int REFERENCES things);\n',
    });
    const settings = {
      databaseUrl: database.url,
      schema: 'alpha',
      sets: [
        { dir: first, table: 'lib_migrations' },
        { dir: second, table: 'migrations' },
      ],
      logger: silent,
    };
    await migrate(settings);
    await migrate(settings); // idempotent
    const { rows } = await pool.query<{ table_schema: string; table_name: string }>(
      `SELECT table_schema, table_name FROM information_schema.tables
        WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY table_name`,
    );
    expect(rows).toEqual([
      { table_schema: 'alpha', table_name: 'lib_migrations' },
      { table_schema: 'alpha', table_name: 'migrations' },
      { table_schema: 'alpha', table_name: 'more_things' },
      { table_schema: 'alpha', table_name: 'things' },
    ]);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await pool.query('CREATE TABLE tx_test (id int PRIMARY KEY)');
    await withTransaction(pool, (client) => client.query('INSERT INTO tx_test VALUES (1)'));
    await expect(
      withTransaction(pool, async (client) => {
        await client.query('INSERT INTO tx_test VALUES (2)');
        await client.query('INSERT INTO tx_test VALUES (1)');
      }),
    ).rejects.toSatisfy((error) => sqlState(error) === UNIQUE_VIOLATION);
    const { rows } = await pool.query('SELECT id FROM tx_test ORDER BY id');
    expect(rows).toEqual([{ id: 1 }]);
  });

  it('opens a transaction with a first statement sent with its BEGIN, whose rows the work gets, in it', async () => {
    await pool.query('CREATE TABLE opened_test (id int PRIMARY KEY)');
    await pool.query('INSERT INTO opened_test VALUES (1), (2)');
    const claim = 'DELETE FROM opened_test WHERE id IN (SELECT id FROM opened_test ORDER BY id LIMIT 1) RETURNING id';
    const seen = await withTransactionOpenedBy<{ id: number }, { id: number }[]>(pool, claim, async (client, rows) => {
      // Inside the same transaction: what the claim deleted is gone for it, not yet for others.
      expect((await client.query('SELECT id FROM opened_test')).rows).toEqual([{ id: 2 }]);
      expect((await pool.query('SELECT id FROM opened_test ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
      return rows;
    });
    expect(seen).toEqual([{ id: 1 }]);
    await expect(
      withTransactionOpenedBy(pool, claim, async () => {
        throw new Error('publish failed');
      }),
    ).rejects.toThrow('publish failed');
    // Rolled back: the second claim's row is back.
    expect((await pool.query('SELECT id FROM opened_test')).rows).toEqual([{ id: 2 }]);
  });

  it('reports reachability', async () => {
    expect(await isDatabaseReachable(pool)).toBe(true);
    const unreachable = createPool({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      applicationName: 'db-test',
      logger: silent,
    });
    expect(await isDatabaseReachable(unreachable)).toBe(false);
    await unreachable.end();
  });
  it('starts every session in its schema with its settings', async () => {
    const configured = createPool({
      connectionString: database.url,
      schema: 'elsewhere',
      settings: { 'app.flavour': 'classic-chrome', client_min_messages: 'warning' },
      applicationName: 'db-test',
      logger: silent,
    });
    const settings =
      `SELECT current_setting('search_path') AS path, current_setting('app.flavour') ` +
      `AS flavour, current_setting('client_min_messages') AS messages`;
    // Two connections at once: each has them from its start.
    const sessions = await Promise.all(
      [0, 1].map(() => withTransaction(configured, async (client) => (await client.query(settings)).rows[0])),
    );
    expect(sessions).toEqual([0, 1].map(() => ({ path: 'elsewhere', flavour: 'classic-chrome', messages: 'warning' })));
    await configured.end();
  });

  it('prepares each parameterised query once per connection, and runs the rest as they are', async () => {
    const single = createPool({
      connectionString: database.url,
      applicationName: 'db-test-prepared',
      max: 1,
      logger: silent,
    });
    try {
      const sum = 'SELECT $1::int + $2::int AS sum';
      const results = [];
      for (let i = 0; i < 3; i++) results.push((await single.query<{ sum: number }>(sum, [i, 10])).rows[0]!.sum);
      expect(results).toEqual([10, 11, 12]);
      await single.query('SELECT 1 AS one');
      await single.query(`SELECT $1::text AS text`, ['other']);
      // Same text, same statement; a different text, its own; no parameters, none.
      const { rows } = await single.query<{ statement: string }>(
        'SELECT statement FROM pg_prepared_statements WHERE statement <> $1 ORDER BY statement',
        ['SELECT statement FROM pg_prepared_statements WHERE statement <> $1 ORDER BY statement'],
      );
      expect(rows.map((row) => row.statement)).toEqual([sum, 'SELECT $1::text AS text']);
      // A statement that fails still fails the same way, and the connection goes on.
      await expect(single.query('SELECT $1::uuid AS id', ['not a uuid'])).rejects.toMatchObject({ code: '22P02' });
      expect((await single.query<{ sum: number }>(sum, [1, 1])).rows[0]!.sum).toBe(2);
    } finally {
      await single.end();
    }
  });

  it('lives through the server ending a connection that is out of the pool between two queries', async () => {
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    // As a database restart does: FATAL 57P01 arrives while the client runs no query. Unheard, it would crash the
    // process.
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    // The barrier: the backend is gone, so its FATAL has reached the idle client while we polled.
    await eventually(async () =>
      (await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0 ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    expect(await isDatabaseReachable(pool)).toBe(true);
  });

  describe('time limits on every connection', () => {
    let limited: Pool;
    beforeAll(() => {
      limited = createPool({
        connectionString: database.url,
        applicationName: 'db-test-timeouts',
        logger: silent,
        timeouts: { statementMs: 200, lockMs: 100, idleInTransactionMs: 300 },
      });
    });
    afterAll(() => limited.end());

    it('cancels a statement that runs longer than its limit', async () => {
      const started = Date.now();
      const failure = await limited.query('SELECT pg_sleep(5)').catch((error: unknown) => error);
      expect(sqlState(failure)).toBe('57014');
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('gives up waiting for a lock after its limit', async () => {
      await pool.query('CREATE TABLE locked_things (id int PRIMARY KEY)');
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE locked_things IN ACCESS EXCLUSIVE MODE');
        const failure = await limited.query('SELECT count(*) FROM locked_things').catch((error: unknown) => error);
        expect(sqlState(failure)).toBe('55P03');
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
    });

    it('ends a session left idle inside a transaction, releasing what it held', async () => {
      const client = await limited.connect();
      client.on('error', () => undefined);
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await client.query('BEGIN');
      // The server ends the session by itself: its backend leaves pg_stat_activity.
      await eventually(async () =>
        (await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0 ? true : undefined,
      );
      client.release(true);
    });
  });
});
