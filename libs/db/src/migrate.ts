import { runner } from 'node-pg-migrate';

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
  for (const set of sets) {
    const applied = await runner({
      databaseUrl,
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
