import { runner } from 'node-pg-migrate';
import pg from 'pg';

/** A folder of SQL migrations and the table that records which of them ran. */
export interface MigrationSet {
  dir: string;
  table: string;
}

interface InfoLogger {
  info(object: object, message: string): void;
}

export interface MigrateSettings {
  databaseUrl: string;
  /** The service's own schema: created when missing, and the only one its migrations touch. */
  schema: string;
  /** Run in order, each with its own record table, e.g. the outbox tables and then the service's own. */
  sets: MigrationSet[];
  logger: InfoLogger;
}

/**
 * Brings `schema` up to date. node-pg-migrate's advisory lock is one per database: services (and
 * instances) starting at once wait for it in turn, and the later instances of a service find nothing
 * to do.
 */
export async function migrate({ databaseUrl, schema, sets, logger }: MigrateSettings): Promise<void> {
  // A client of our own, heard when its connection breaks: node-pg-migrate's would emit an 'error' that
  // nobody listens to, and crash the process, when the database goes away mid-migration. Broken, it
  // fails the query in flight instead, and the caller may try again.
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await migrateWith(client, schema, sets, logger);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrateWith(
  dbClient: pg.Client,
  schema: string,
  sets: MigrationSet[],
  logger: InfoLogger,
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
