import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { createPool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import {
  type BackendConfig,
  EndedSessions,
  migrationSetsOf,
  promptsUnsent,
  type ServiceDefinition,
  sessionEnds,
} from '@recipes/runtime';

/** What this check needs of the event catalogue in @recipes/contracts. */
export interface CatalogueEntry {
  type: string;
  version: number;
  producer: string;
  consumers: readonly string[];
}

/** An event a migration's SQL writes into the outbox, e.g. from a trigger; undefined where it could not be read. */
export interface SqlOutboxWrite {
  file: string;
  type: string | undefined;
  version: number | undefined;
  producer: string | undefined;
}

export interface ServiceEvents {
  service: string;
  /** The handlers the service's definition gives, as the runtime binds them to its queue. */
  handlers: readonly { definition: { type: string; version: number } }[];
  /** What the service says it publishes (`src/events/published.ts`). */
  published: readonly { event: { type: string; version: number } }[];
  /** Folders of SQL migrations run into its schema, where triggers may write events to its outbox. */
  migrationsDirs: readonly string[];
}

const key = (event: { type: string; version: number }) => `${event.type}@${event.version}`;

/** The function a migration may define to build every envelope its triggers write (`write_event(type, version, …)`). */
const ENVELOPE_FUNCTION = 'write_event';

/**
 * The events the `.sql` files in `dir` write into the outbox: each `INSERT INTO outbox` read from the
 * envelope it builds (`'type', '…'`, `'version', n`, `'producer', '…'`), and each call of an envelope
 * function (`write_event('comment.mention.created', 1, …)`) with the producer its own INSERT names. A
 * write whose envelope cannot be read that way comes back with undefined fields, so a check over it
 * fails rather than passing it by.
 */
export function sqlOutboxWrites(dir: string): SqlOutboxWrite[] {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ file: join(dir, file), sql: readFileSync(join(dir, file), 'utf8').replace(/--.*$/gm, '') }));
  const inserts = files.flatMap(({ file, sql }) =>
    sql
      .split(/\binsert\s+into\s+outbox\b/i)
      .slice(1)
      .map((statement) => statement.slice(0, statement.indexOf(';') + 1 || undefined))
      .map((statement) => ({
        file,
        builder: /'type'\s*,\s*event_type\b/.test(statement),
        type: /'type'\s*,\s*'([^']+)'/.exec(statement)?.[1],
        version: Number(/'version'\s*,\s*(\d+)/.exec(statement)?.[1]) || undefined,
        producer: /'producer'\s*,\s*'([^']+)'/.exec(statement)?.[1],
      })),
  );
  const builderProducer = inserts.find((insert) => insert.builder)?.producer;
  const calls = files.flatMap(({ file, sql }) =>
    // Its definition and its DROP name it after FUNCTION; a call does not.
    [
      ...sql.matchAll(
        new RegExp(`(?<!function\\s+)\\b${ENVELOPE_FUNCTION}\\s*\\(\\s*('([^']+)'|[^,]*)\\s*,\\s*(\\d+)?`, 'gi'),
      ),
    ].map((call) => ({
      file,
      type: call[2],
      version: Number(call[3]) || undefined,
      producer: builderProducer,
    })),
  );
  return [...inserts.filter((insert) => !insert.builder).map(({ builder: _, ...write }) => write), ...calls];
}

/**
 * Where a service and the catalogue disagree, one line each: a type it handles that the catalogue does
 * not list it as consuming (or the reverse, events its queue would never receive), and an event its SQL
 * writes to the outbox that the catalogue does not declare for it. Empty when they agree.
 */
export function catalogueDisagreements(
  catalogue: readonly CatalogueEntry[],
  { service, handlers, published, migrationsDirs }: ServiceEvents,
): string[] {
  const handled = new Set(handlers.map((handler) => key(handler.definition)));
  const consumed = new Set(catalogue.filter((event) => event.consumers.includes(service)).map(key));
  const said = new Set(published.map(({ event }) => key(event)));
  const produced = new Set(catalogue.filter((event) => event.producer === service).map(key));
  const problems = [
    ...[...handled]
      .filter((event) => !consumed.has(event))
      .map((event) => `${service} handles ${event}, but the catalogue does not list it as a consumer`),
    ...[...consumed]
      .filter((event) => !handled.has(event))
      .map((event) => `the catalogue lists ${service} as consuming ${event}, but it has no handler for it`),
    ...[...said]
      .filter((event) => !produced.has(event))
      .map((event) => `${service} says it publishes ${event}, but the catalogue does not name it the producer`),
    ...[...produced]
      .filter((event) => !said.has(event))
      .map(
        (event) => `the catalogue names ${service} the producer of ${event}, but its published events do not list it`,
      ),
  ];
  for (const write of migrationsDirs.flatMap(sqlOutboxWrites)) {
    const { file, type, version, producer } = write;
    if (type === undefined || version === undefined || producer === undefined) {
      problems.push(`${file} writes to the outbox, but its event's type, version or producer cannot be read`);
      continue;
    }
    const declared = catalogue.find((event) => event.type === type && event.version === version);
    if (!declared) problems.push(`${file} writes ${type}@${version}, which the catalogue does not list`);
    else if (declared.producer !== service || producer !== service) {
      problems.push(
        `${file} writes ${type}@${version} as ${producer} from ${service}, but the catalogue says ${declared.producer} produces it`,
      );
    } else if (!said.has(key(declared)))
      problems.push(`${file} writes ${type}@${version}, but ${service}'s published events do not list it`);
  }
  return problems.sort();
}

/**
 * The events of a service as its definition states them: the handlers its parts give (made without
 * touching the database: the pool connects on first use only) and the migrations of its schema.
 */
export function serviceEventsOf<C extends BackendConfig, P>(definition: ServiceDefinition<C, P>): ServiceEvents {
  const logger = createLogger({ service: definition.name, level: 'silent' });
  const config = parseConfig(definition.configSchema, {}) as C;
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: definition.name,
    applicationName: 'catalogue-check',
    logger,
  });
  const endedSessions = new EndedSessions();
  const parts = definition.parts({
    config,
    pool,
    logger,
    keys: generateSigningKeyPair(),
    endedSessions,
    prompts: promptsUnsent,
  });
  return {
    service: definition.name,
    // The runtime adds to every service's own handlers the one that keeps ended sessions, where it consumes them.
    handlers: [
      ...(definition.handlers?.(parts) ?? []),
      ...sessionEnds(definition.name, pool, endedSessions, logger).durable,
    ],
    published: definition.publishes,
    migrationsDirs: migrationSetsOf(definition).map((set) => set.dir),
  };
}
