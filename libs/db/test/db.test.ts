import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, isDatabaseReachable, migrate, sqlState, UNIQUE_VIOLATION, withTransaction, type Pool } from '../src/index.js';

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
    const second = migrationDir({ '001_more.sql': '-- Up Migration\nCREATE TABLE more_things (id int REFERENCES things);\n' });
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
});
