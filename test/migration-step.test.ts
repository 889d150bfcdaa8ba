import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { migrate } from '@recipes/db';
import { migrationSetsOf } from '@recipes/runtime';
import { eventually, freePort, removeExchangeFamily, reserveTestDatabase, uniqueSuffix } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { nodeFlags } from '../scripts/services.mjs';
import { withDatabase } from './support/database.js';

/**
 * Migrations as their own step (docs/operations.md, "Migrations as a step" and "Database roles"), on a database of
 * its own: the roles made by the SQL the document gives, the users service's schema migrated by its migrate command
 * as the migrator, and the service started as the runtime role with `MIGRATE_ON_START=false`. A schema one migration
 * behind the code is refused at start with one line.
 */
const database = reserveTestDatabase();
const databaseName = new URL(database.url).pathname.slice(1);
const suffix = uniqueSuffix();
const MIGRATOR = `recipes_migrator_${suffix}`;
const RUNTIME = `recipes_runtime_${suffix}`;
const exchange = `recipes.migration_step_${suffix}`;
const adminUrl = inject('databaseUrl');
const keysDir = mkdtempSync(join(tmpdir(), 'migration-step-keys-'));
const usersMigrations = fileURLToPath(new URL('../services/users/migrations', import.meta.url));

/** `database`'s URL as `role` (trust or a password; the roles' password is the document's, unchanged). */
const urlAs = (role: string, password: string) => {
  const url = new URL(database.url);
  url.username = role;
  url.password = password;
  return url.toString();
};
const migratorUrl = urlAs(MIGRATOR, 'change-me');
const runtimeUrl = urlAs(RUNTIME, 'change-me-too');

/** The SQL of docs/operations.md's "Database roles", for this test's roles and database. */
function documentedRoleSql(): string {
  const doc = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
  const after = doc.slice(doc.indexOf('**Database roles.**'));
  const block = /```sql\n([\s\S]*?)```/.exec(after)?.[1];
  if (!block) throw new Error('docs/operations.md: no SQL block after "Database roles"');
  return block
    .replaceAll('recipes_migrator', MIGRATOR)
    .replaceAll('recipes_runtime', RUNTIME)
    .replaceAll('DATABASE recipes', `DATABASE ${databaseName}`);
}

interface Run {
  code: number | null;
  lines: string[];
  stderr: string;
}

/** Runs `services/users/dist/<entry>.js` to its end (killed after `timeoutMs`); `exited()` tells meanwhile. */
function runUsers(
  entry: 'server' | 'migrate',
  env: Record<string, string>,
  timeoutMs = 30_000,
  args: string[] = [],
): Promise<Run> & { exited(): boolean } {
  const child = spawn(process.execPath, [...nodeFlags, `services/users/dist/${entry}.js`, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  let exited = false;
  const run = new Promise<Run>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      clearTimeout(timer);
      resolve({ code, lines: stdout.split('\n').filter((line) => line !== ''), stderr });
    }),
  );
  return Object.assign(run, { exited: () => exited });
}

/** The settings of a users process against this test's database and exchange. */
const usersEnv = (overrides: Record<string, string>) => ({
  AMQP_URL: inject('amqpUrl'),
  EVENTS_EXCHANGE: exchange,
  JWT_PUBLIC_KEY_FILE: join(keysDir, 'jwt-public.pem'),
  JWT_PRIVATE_KEY_FILE: join(keysDir, 'jwt-private.pem'),
  LOG_LEVEL: 'info',
  ...overrides,
});

beforeAll(async () => {
  const keys = generateSigningKeyPair();
  writeFileSync(join(keysDir, 'jwt-public.pem'), keys.publicKey);
  writeFileSync(join(keysDir, 'jwt-private.pem'), keys.privateKey);
  await database.create();
  await withDatabase(database.url, (admin) => admin.query(documentedRoleSql()));
});

afterAll(async () => {
  try {
    await removeExchangeFamily(inject('amqpUrl'), exchange, { services: ['users'] });
  } finally {
    // The database first: the roles' grants and default privileges in it go with it.
    await database.drop();
    await withDatabase(adminUrl, async (admin) => {
      for (const role of [MIGRATOR, RUNTIME]) await admin.query(`DROP ROLE IF EXISTS ${role}`);
    });
    rmSync(keysDir, { recursive: true, force: true });
  }
});

describe('migrations as their own step, with a migrator role and a runtime role', () => {
  const latest = readdirSync(usersMigrations)
    .sort()
    .at(-1)!
    .replace(/\.sql$/, '');

  it('refuses to start a service whose schema lacks a migration of its code, with one line naming both', async () => {
    // Every migration but the service's latest, as a release before it would have left the schema.
    const older = mkdtempSync(join(tmpdir(), 'migration-step-'));
    cpSync(usersMigrations, older, { recursive: true, filter: (source) => !source.endsWith(`${latest}.sql`) });
    const sets = migrationSetsOf({ migrations: new URL(`file://${older}/`) });
    const silent = { info: () => undefined, warn: () => undefined };
    await migrate({ databaseUrl: migratorUrl, schema: 'users', sets, logger: silent });
    rmSync(older, { recursive: true, force: true });

    const run = await runUsers(
      'server',
      usersEnv({
        DATABASE_URL: runtimeUrl,
        MIGRATE_ON_START: 'false',
        PORT: String(await freePort()),
        INTERNAL_PORT: String(await freePort()),
        METRICS_PORT: String(await freePort()),
      }),
      // A service that starts anyway is stopped within the test's time, and fails it.
      15_000,
    );
    expect(run.code).toBe(78);
    expect(run.stderr).toBe('');
    expect(run.lines).toHaveLength(1);
    const line = JSON.parse(run.lines[0]!) as { level: string; service: string; msg: string; missing: string[] };
    expect(line).toMatchObject({ level: 'fatal', service: 'users', missing: [latest] });
    expect(line.msg).toContain('users: the schema is behind the code');
    expect(line.msg).toContain(`migration ${latest} not applied`);
  });

  it('cannot migrate as the runtime role, which has no right to change the schema', async () => {
    const run = await runUsers('migrate', usersEnv({ DATABASE_URL: runtimeUrl }));
    expect(run.code).toBe(1);
    const failure = run.lines.map(
      (line) => JSON.parse(line) as { level: string; msg: string; err?: { code?: string } },
    );
    expect(failure.at(-1)).toMatchObject({ level: 'fatal', msg: 'users: the migrations failed' });
    expect(JSON.stringify(failure.at(-1))).toMatch(/permission denied|must be owner/);
  });

  it('migrates with the migrator through the migrate command, then serves and writes as the runtime role', async () => {
    // A pod's init container: waits, as the runtime role, for the step to apply what is missing.
    const waiter = runUsers('migrate', usersEnv({ DATABASE_URL: runtimeUrl }), 30_000, ['--wait']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(waiter.exited()).toBe(false);

    const migrated = await runUsers(
      'migrate',
      usersEnv({ DATABASE_URL: runtimeUrl, MIGRATION_DATABASE_URL: migratorUrl }),
    );
    expect(migrated.code, migrated.lines.join('\n') + migrated.stderr).toBe(0);
    expect(migrated.lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'migrations applied',
      'users: the schema is up to date',
    ]);
    const waited = await waiter;
    expect(waited.code).toBe(0);
    expect(waited.lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      `users: waiting for the migration step to apply ${latest}`,
      'users: the schema is up to date',
    ]);

    // The runtime role reads and writes rows and changes nothing else.
    await withDatabase(runtimeUrl, async (runtime) => {
      await expect(runtime.query('CREATE TABLE users.intruder (id int)')).rejects.toMatchObject({ code: '42501' });
      await expect(runtime.query('ALTER TABLE users.users ADD COLUMN intruder int')).rejects.toMatchObject({
        code: '42501',
      });
    });

    const port = await freePort();
    const child = spawn(process.execPath, [...nodeFlags, 'services/users/dist/server.js'], {
      env: {
        PATH: process.env.PATH ?? '',
        ...usersEnv({
          DATABASE_URL: runtimeUrl,
          MIGRATE_ON_START: 'false',
          LOG_LEVEL: 'warn',
          PORT: String(port),
          INTERNAL_PORT: String(await freePort()),
          METRICS_PORT: String(await freePort()),
        }),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${port}`;
      await eventually(
        () =>
          fetch(`${url}/health/ready`).then(
            (response) => (response.ok ? true : undefined),
            () => undefined,
          ),
        20_000,
        100,
      );
      const registered = await fetch(`${url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: `ada_${suffix}`, password: 'correct horse battery' }),
      });
      expect(registered.status, await registered.clone().text()).toBe(201);
      const { rows } = await withDatabase(database.url, (admin) =>
        admin.query('SELECT count(*)::int AS count FROM users.users WHERE username = $1', [`ada_${suffix}`]),
      );
      expect(rows).toEqual([{ count: 1 }]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
