import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
  /** The handlers the service's compose function returns, as the runtime binds them to its queue. */
  handlers: readonly { definition: { type: string; version: number } }[];
  /** Folders of SQL migrations run into its schema, where triggers may write events to its outbox. */
  migrationsDirs: readonly string[];
}

const key = (event: { type: string; version: number }) => `${event.type}@${event.version}`;

/**
 * The events each `INSERT INTO outbox` of the `.sql` files in `dir` writes, read from the envelope it
 * builds (`'type', '…'`, `'version', n`, `'producer', '…'`). A statement whose envelope cannot be read
 * that way comes back with undefined fields, so a check over it fails rather than passing it by.
 */
export function sqlOutboxWrites(dir: string): SqlOutboxWrite[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .flatMap((file) => {
      const sql = readFileSync(join(dir, file), 'utf8').replace(/--.*$/gm, '');
      return sql
        .split(/\binsert\s+into\s+outbox\b/i)
        .slice(1)
        .map((statement) => statement.slice(0, statement.indexOf(';') + 1 || undefined))
        .map((statement) => ({
          file: join(dir, file),
          type: /'type'\s*,\s*'([^']+)'/.exec(statement)?.[1],
          version: Number(/'version'\s*,\s*(\d+)/.exec(statement)?.[1]) || undefined,
          producer: /'producer'\s*,\s*'([^']+)'/.exec(statement)?.[1],
        }));
    });
}

/**
 * Where a service and the catalogue disagree, one line each: a type it handles that the catalogue does
 * not list it as consuming (or the reverse, events its queue would never receive), and an event its SQL
 * writes to the outbox that the catalogue does not declare for it. Empty when they agree.
 */
export function catalogueDisagreements(catalogue: readonly CatalogueEntry[], { service, handlers, migrationsDirs }: ServiceEvents): string[] {
  const handled = new Set(handlers.map((handler) => key(handler.definition)));
  const consumed = new Set(catalogue.filter((event) => event.consumers.includes(service)).map(key));
  const problems = [
    ...[...handled].filter((event) => !consumed.has(event)).map((event) => `${service} handles ${event}, but the catalogue does not list it as a consumer`),
    ...[...consumed].filter((event) => !handled.has(event)).map((event) => `the catalogue lists ${service} as consuming ${event}, but it has no handler for it`),
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
      problems.push(`${file} writes ${type}@${version} as ${producer} from ${service}, but the catalogue says ${declared.producer} produces it`);
    }
  }
  return problems.sort();
}
