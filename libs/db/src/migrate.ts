import { readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { isTransientDatabaseError } from './transient.js';

/** A folder of SQL migrations and the table that records which of them ran. */
export interface MigrationSet {
  dir: string;
  table: string;
}

interface MigrateLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface MigrateSettings {
  databaseUrl: string;
  /** The service's own schema: created when missing, and the only one its migrations touch. */
  schema: string;
  /** Run in order, each with its own record table, e.g. the outbox tables and then the service's own. */
  sets: MigrationSet[];
  logger: MigrateLogger;
}

/**
 * 0.25 s, 0.5 s, then every 1 s: the wait before migrating again after the database went away. Short, as
 * a database that restarts again and again is up for a few seconds at a time, and a try costs little.
 */
const retryDelayMs = (failures: number) => Math.min(250 * 2 ** (failures - 1), 1_000);

/**
 * The database could not be reached, or the connection was lost mid-run. node-pg-migrate wraps some errors in
 * its own, text only: the client's own end tells what happened.
 */
class DatabaseAway extends Error {
  constructor(cause: unknown) {
    super('the database could not be reached, or the connection was lost, while migrating', { cause });
  }
}

/** A connection the server refused for good: a wrong password (class 28), a database that does not exist. */
const isRefusal = (error: unknown) => /^(28|3D)/.test(String((error as { code?: unknown }).code ?? ''));

/**
 * Brings `schema` up to date. node-pg-migrate's advisory lock is one per database: services (and
 * instances) starting at once wait for it in turn, and the later instances of a service find nothing
 * to do. Each set runs in one transaction; when the database goes away meanwhile (a restart, a lost
 * connection), whatever the set had done is rolled back by the server, and the whole run is tried again
 * on a new connection once it is back, for as long as it takes: a start never fails for a dependency
 * that is only away. A migration that fails by itself (bad SQL) rejects at once.
 */
export async function migrate(settings: MigrateSettings): Promise<void> {
  for (let failures = 1; ; failures += 1) {
    try {
      return await migrateOnce(settings);
    } catch (err) {
      if (!(err instanceof DatabaseAway) && !isTransientDatabaseError(err)) throw err;
      const retryInMs = retryDelayMs(failures);
      settings.logger.warn(
        { err, schema: settings.schema, retryInMs },
        'the database is unavailable while migrating: migrating again once it is back',
      );
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}

async function migrateOnce({ databaseUrl, schema, sets, logger }: MigrateSettings): Promise<void> {
  // A client of our own, heard when its connection breaks: node-pg-migrate's would emit an 'error' that
  // nobody listens to, and crash the process, when the database goes away mid-migration. Broken, it
  // fails the query in flight instead, and the run is tried again.
  const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true, connectionTimeoutMillis: 10_000 });
  // Lost once connected and before we end it; a connection refused (a wrong password say) tells by its error.
  let connected = false;
  let ending = false;
  let lost = false;
  client.on('error', () => undefined);
  client.on('end', () => {
    lost = connected && !ending;
  });
  try {
    // Any failure to connect but a refusal is the database away: refused, reset, timed out, starting up.
    await client.connect().catch((err: unknown) => {
      throw isRefusal(err) ? err : new DatabaseAway(err);
    });
    connected = true;
    // An instance started again (the usual start) has nothing to do: one query, and no wait for the lock.
    if (await upToDate(client, schema, sets)) return;
    await migrateWith(client, schema, sets, logger);
  } catch (err) {
    throw lost ? new DatabaseAway(err) : err;
  } finally {
    ending = true;
    await client.end().catch(() => undefined);
  }
}

/** SQLSTATEs of a schema or migrations table not made yet: a first start. */
const NOT_MADE_YET = new Set(['3F000', '42P01']);

/** The migrations of each folder, named as node-pg-migrate names them: the file's name without its extension. */
async function migrationNames(sets: MigrationSet[]): Promise<string[][]> {
  return Promise.all(
    sets.map(async (set) =>
      (await readdir(set.dir))
        .filter((file) => !file.startsWith('.'))
        .map((file) => file.slice(0, -extname(file).length || undefined))
        .sort(),
    ),
  );
}

/**
 * The migrations of `sets` that `schema` does not record as applied, set by set in order (each by its file's name
 * without the extension, as node-pg-migrate names it); all of them where the schema or a record table is not made
 * yet. Read without the lock, as nothing unapplies a migration.
 */
async function pendingIn(client: pg.Client, schema: string, sets: MigrationSet[]): Promise<string[]> {
  const files = await migrationNames(sets);
  const reads = sets.map(
    (set, i) =>
      `SELECT ${i} AS set_index, name FROM ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(set.table)}`,
  );
  let rows: Array<{ set_index: number; name: string }> = [];
  try {
    ({ rows } = await client.query<{ set_index: number; name: string }>(reads.join(' UNION ALL ')));
  } catch (err) {
    if (!NOT_MADE_YET.has((err as { code?: string }).code ?? '')) throw err;
  }
  const recorded = sets.map((_, i) => new Set(rows.filter((row) => row.set_index === i).map((row) => row.name)));
  return files.flatMap((names, i) => names.filter((name) => !recorded[i]!.has(name)));
}

/** Whether every set's table records every migration of its folder. */
async function upToDate(client: pg.Client, schema: string, sets: MigrationSet[]): Promise<boolean> {
  return (await pendingIn(client, schema, sets)).length === 0;
}

export interface PendingSettings {
  databaseUrl: string;
  schema: string;
  sets: MigrationSet[];
}

/**
 * The migrations of `sets` not applied to `schema`, in the order they would run: empty when the schema is
 * current. One query on a connection of its own, which needs no right but reading the record tables, so a
 * service's runtime role may ask it. A database that cannot be reached rejects (the caller decides whether to
 * wait).
 */
export async function pendingMigrations({ databaseUrl, schema, sets }: PendingSettings): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await pendingIn(client, schema, sets);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrateWith(
  dbClient: pg.Client,
  schema: string,
  sets: MigrationSet[],
  logger: MigrateLogger,
): Promise<void> {
  for (const set of sets) {
    const applied = await runner({
      dbClient,
      schema,
      createSchema: true,
      dir: set.dir,
      migrationsTable: set.table,
      direction: 'up',
      checkOrder: true,
      singleTransaction: true,
      advisoryLockMode: 'wait',
      log: () => undefined,
    });
    if (applied.length > 0) logger.info({ schema, migrations: applied.map((m) => m.name) }, 'migrations applied');
  }
}
