import { loadConfig } from '@recipes/config';
import { isTransientDatabaseError, migrate, pendingMigrations } from '@recipes/db';
import { createLogger, type Logger } from '@recipes/logging';
import type { BackendConfig } from './config.js';
import { migrationSetsOf, type ServiceDefinition } from './definition.js';

/** The exit code of a process that will not run as it is set up (sysexits' EX_CONFIG), as for a bad setting. */
export const EX_CONFIG = 78;

/** The service's schema lacks migrations its code has: it must not serve until they are applied. */
export class SchemaBehindError extends Error {
  override name = 'SchemaBehindError';

  constructor(
    readonly service: string,
    readonly missing: string[],
  ) {
    const more = missing.length > 1 ? ` and ${missing.length - 1} after it` : '';
    super(
      `${service}: the schema is behind the code: migration ${missing[0]}${more} not applied; ` +
        `run the migrations first (node services/${service}/dist/migrate.js)`,
    );
  }
}

/** The URL migrations connect with: a role that may change the schema where one is given. */
const migrationUrlOf = (config: BackendConfig) => config.MIGRATION_DATABASE_URL ?? config.DATABASE_URL;

/** Brings the service's schema up to date, as `MIGRATE_ON_START` does at start and `migrate.js` as a step. */
export function migrateSchema(
  definition: Pick<ServiceDefinition, 'name' | 'migrations' | 'sharedMigrations'>,
  config: BackendConfig,
  logger: Logger,
): Promise<void> {
  return migrate({
    databaseUrl: migrationUrlOf(config),
    schema: definition.name,
    sets: migrationSetsOf(definition),
    logger,
  });
}

/**
 * The migrations of the service's code its schema does not record yet, oldest first: asked with the service's own
 * `DATABASE_URL`, which needs no right to change the schema.
 */
const missingMigrations = (
  definition: Pick<ServiceDefinition, 'name' | 'migrations' | 'sharedMigrations'>,
  config: BackendConfig,
) =>
  pendingMigrations({ databaseUrl: config.DATABASE_URL, schema: definition.name, sets: migrationSetsOf(definition) });

/**
 * Rejects with `SchemaBehindError` when the service's schema lacks a migration of its code. A database that cannot
 * be reached rejects as it is (the caller waits for it).
 */
export async function assertSchemaCurrent(
  definition: Pick<ServiceDefinition, 'name' | 'migrations' | 'sharedMigrations'>,
  config: BackendConfig,
): Promise<void> {
  const missing = await missingMigrations(definition, config);
  if (missing.length > 0) throw new SchemaBehindError(definition.name, missing);
}

/** How often `migrate.js --wait` asks again whether the schema is current. */
const WAIT_INTERVAL_MS = 2_000;

/**
 * Resolves once the service's schema records every migration of its code, asking every `WAIT_INTERVAL_MS` with
 * `DATABASE_URL` and migrating nothing: what a pod runs before its service, while a migration step (a Job) runs
 * elsewhere. Says once what it waits for; a database that is away is waited for too.
 */
export async function waitForSchema(
  definition: Pick<ServiceDefinition, 'name' | 'migrations' | 'sharedMigrations'>,
  config: BackendConfig,
  logger: Logger,
): Promise<void> {
  let told = '';
  for (;;) {
    const missing = await missingMigrations(definition, config).catch((err: unknown) => {
      if (!isTransientDatabaseError(err)) throw err;
      logger.warn({ err }, 'the database is unavailable: waiting for it');
      return undefined;
    });
    if (missing?.length === 0) return;
    const waitingFor = missing === undefined ? told : missing.join(',');
    if (missing !== undefined && waitingFor !== told) {
      told = waitingFor;
      logger.info({ missing }, `${definition.name}: waiting for the migration step to apply ${missing[0]}`);
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_INTERVAL_MS));
  }
}

/**
 * A service's migrate command (`services/<name>/dist/migrate.js`): settings from the environment, the schema
 * brought up to date with `MIGRATION_DATABASE_URL` (else `DATABASE_URL`), one line when done, exit 0. A migration
 * that fails stops it with that error and exit 1; a database that is away is waited for. With `--wait` it migrates
 * nothing and exits 0 once the schema is current (`waitForSchema`): a pod's init container, behind a Job that
 * migrates.
 */
export async function runMigrations<C extends BackendConfig, P>(
  definition: ServiceDefinition<C, P>,
  args: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const unknown = args.filter((arg) => arg !== '--wait');
  if (unknown.length > 0) {
    process.stderr.write(`usage: migrate.js [--wait] (not ${unknown.join(' ')})\n`);
    process.exit(2);
  }
  const config = loadConfig(definition.configSchema);
  const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL });
  const waiting = args.includes('--wait');
  try {
    await (waiting ? waitForSchema(definition, config, logger) : migrateSchema(definition, config, logger));
  } catch (err) {
    const failed = waiting ? 'could not read the migrations its schema records' : 'the migrations failed';
    logger.fatal({ err, schema: definition.name }, `${definition.name}: ${failed}`);
    process.exit(1);
  }
  logger.info({ schema: definition.name }, `${definition.name}: the schema is up to date`);
}
