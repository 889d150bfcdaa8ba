import { loadConfig } from '@recipes/config';
import { migrate, pendingMigrations } from '@recipes/db';
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
 * Rejects with `SchemaBehindError` when the service's schema lacks a migration of its code: asked with the
 * service's own `DATABASE_URL`, which needs no right to change the schema. A database that cannot be reached
 * rejects as it is (the caller waits for it).
 */
export async function assertSchemaCurrent(
  definition: Pick<ServiceDefinition, 'name' | 'migrations' | 'sharedMigrations'>,
  config: BackendConfig,
): Promise<void> {
  const missing = await pendingMigrations({
    databaseUrl: config.DATABASE_URL,
    schema: definition.name,
    sets: migrationSetsOf(definition),
  });
  if (missing.length > 0) throw new SchemaBehindError(definition.name, missing);
}

/**
 * A service's migrate command (`services/<name>/dist/migrate.js`): settings from the environment, the schema
 * brought up to date with `MIGRATION_DATABASE_URL` (else `DATABASE_URL`), one line when done, exit 0. A migration
 * that fails stops it with that error and exit 1; a database that is away is waited for.
 */
export async function runMigrations<C extends BackendConfig, P>(definition: ServiceDefinition<C, P>): Promise<void> {
  const config = loadConfig(definition.configSchema);
  const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL });
  try {
    await migrateSchema(definition, config, logger);
  } catch (err) {
    logger.fatal({ err, schema: definition.name }, `${definition.name}: the migrations failed`);
    process.exit(1);
  }
  logger.info({ schema: definition.name }, `${definition.name}: the schema is up to date`);
}
