import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, eventually, type TestDatabase } from '@recipes/testing';
import { PG_MIGRATE_LOCK_ID } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, pendingMigrations } from '../src/index.js';

/** Migrations that meet a lost connection are run again whole; those that fail by themselves are not. */
let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await database?.drop();
});

function migrationDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), `-- Up Migration\n${sql}\n`);
  return dir;
}

function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { info: () => undefined, warn: (_: object, message: string) => warnings.push(message) } };
}

const tablesOf = async (schema: string) =>
  (
    await admin.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    )
  ).rows.map((row) => row.table_name);

/** The backend waiting for the test's advisory lock `key` inside a migration, once there is one. */
const waitingOn = (key: number, not?: number) =>
  eventually(async () => {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event = 'advisory' AND query LIKE $1 AND pid <> $2`,
      [`%pg_advisory_xact_lock(${key})%`, not ?? 0],
    );
    return rows[0]?.pid;
  }, 20_000);

describe('migrate', () => {
  // The connection is ended in each place a migration can be: before the first, between two, in the last.
  it.each([0, 1, 2])('runs the set again whole after its connection is ended at migration %i', async (point) => {
    const key = 7_300 + point;
    const schema = `interrupted_${point}`;
    const statements = [
      'CREATE TABLE first (id int);',
      'CREATE TABLE second (id int);',
      'CREATE TABLE third (id int);',
    ];
    // The migration at `point` waits for a lock the test holds: the barrier where the test ends its connection.
    statements[point] = `SELECT pg_advisory_xact_lock(${key});\n${statements[point]}`;
    const dir = migrationDir(Object.fromEntries(statements.map((sql, i) => [`00${i + 1}_step.sql`, sql])));
    const { warnings, logger } = recordingLogger();
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [key]);
      const run = migrate({ databaseUrl: database.url, schema, sets: [{ dir, table: 'migrations' }], logger });
      const first = await waitingOn(key);
      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      // Tried again on a new connection, up to the same point: nothing of the first try was kept.
      await waitingOn(key, first);
      expect(warnings).toEqual(['the database is unavailable while migrating: migrating again once it is back']);
      // node-pg-migrate makes its table before the set's transaction: that alone is there, and empty.
      expect(await tablesOf(schema)).toEqual(['migrations']);
      expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.migrations`)).rows).toEqual([{ n: 0 }]);
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      await run;
    } finally {
      await holder.end();
    }
    expect(await tablesOf(schema)).toEqual(['first', 'migrations', 'second', 'third']);
    const { rows } = await admin.query(`SELECT name FROM ${schema}.migrations ORDER BY id`);
    expect(rows.map((row) => row.name)).toEqual(['001_step', '002_step', '003_step']);
  });

  it('rejects at once a migration that fails by itself, and keeps nothing of its set', async () => {
    const dir = migrationDir({ '001_fine.sql': 'CREATE TABLE fine (id int);', '002_broken.sql': 'CREATE TABLE (' });
    const { warnings, logger } = recordingLogger();
    await expect(
      migrate({ databaseUrl: database.url, schema: 'broken', sets: [{ dir, table: 'migrations' }], logger }),
    ).rejects.toMatchObject({ code: '42601' });
    expect(warnings).toEqual([]);
    expect(await tablesOf('broken')).not.toContain('fine');
  });

  it('finds a schema up to date without waiting for the migration lock', async () => {
    const dir = migrationDir({ '001_things.sql': 'CREATE TABLE things (id int);' });
    const settings = { databaseUrl: database.url, schema: 'current', sets: [{ dir, table: 'migrations' }] };
    await migrate({ ...settings, logger: recordingLogger().logger });
    // Another instance migrating holds the lock all along.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [PG_MIGRATE_LOCK_ID]);
      await migrate({ ...settings, logger: recordingLogger().logger });
      // A migration not applied yet does wait for it: the check above proved something.
      writeFileSync(join(dir, '002_more.sql'), '-- Up Migration\nCREATE TABLE more (id int);\n');
      let done = false;
      const pending = migrate({ ...settings, logger: recordingLogger().logger }).then(() => (done = true));
      await eventually(async () => {
        const { rows } = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory'",
        );
        return rows.length > 0 ? true : undefined;
      });
      expect(done).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATE_LOCK_ID]);
      await pending;
    } finally {
      await holder.end();
    }
    expect(await tablesOf('current')).toEqual(['migrations', 'more', 'things']);
  });

  it('names the migrations a schema lacks, set by set in order, and none once it is current', async () => {
    const outbox = migrationDir({ '001_rows.sql': 'CREATE TABLE rows (id int);' });
    const own = migrationDir({ '001_a.sql': 'CREATE TABLE a (id int);', '002_b.sql': 'CREATE TABLE b (id int);' });
    const sets = [
      { dir: outbox, table: 'library_migrations' },
      { dir: own, table: 'migrations' },
    ];
    const settings = { databaseUrl: database.url, schema: 'pending', sets };
    // No schema yet: everything.
    expect(await pendingMigrations(settings)).toEqual(['001_rows', '001_a', '002_b']);
    await migrate({ ...settings, logger: recordingLogger().logger });
    expect(await pendingMigrations(settings)).toEqual([]);
    writeFileSync(join(own, '003_c.sql'), '-- Up Migration\nCREATE TABLE c (id int);\n');
    expect(await pendingMigrations(settings)).toEqual(['003_c']);
  });
});
