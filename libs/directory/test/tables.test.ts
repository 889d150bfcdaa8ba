import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectionDirectoryMigrations,
  contentDirectoryMigrations,
  directoryTables,
  relationDirectoryMigrations,
  userDirectoryMigrations,
} from '../src/index.js';

const log = createLogger({ service: 'test', level: 'silent' });
let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  const sets = [
    userDirectoryMigrations,
    contentDirectoryMigrations,
    collectionDirectoryMigrations,
    relationDirectoryMigrations,
  ];
  await migrate({ databaseUrl: database.url, schema: 'svc', sets, logger: log });
  pool = createPool({ connectionString: database.url, schema: 'svc', applicationName: 'directory-test', logger: log });
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('the tables the directories declare as their public surface', () => {
  it.each(Object.entries(directoryTables))(
    '%s: every declared column exists in the migrated table',
    async (_name, { table, columns }) => {
      const { rows } = await pool.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'svc' AND table_name = $1`,
        [table],
      );
      expect(rows.map((row) => row.column_name)).toEqual(expect.arrayContaining([...columns]));
    },
  );
});
