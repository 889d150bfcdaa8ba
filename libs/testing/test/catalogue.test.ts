import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogueDisagreements, sqlOutboxWrites } from '../src/catalogue.js';

const catalogue = [
  { type: 'thing.made', version: 1, producer: 'maker', consumers: ['watcher'] },
  { type: 'thing.seen', version: 1, producer: 'watcher', consumers: [] },
];

/** A migrations folder holding `sql` as its only file. */
function migrations(sql: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'catalogue-migrations-'));
  writeFileSync(join(dir, '001_things.sql'), sql);
  return dir;
}

const trigger = (type: string, producer: string) => `-- Up Migration
CREATE FUNCTION announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox (id, type, payload) VALUES (gen_random_uuid(), '${type}', jsonb_build_object(
    'type', '${type}',
    'version', 1,
    'producer', '${producer}',
    'data', jsonb_build_object('id', NEW.id)));
  RETURN NULL;
END;
$$;
`;

const handler = (type: string, version = 1) => ({ definition: { type, version } });
const seen = [{ event: { type: 'thing.seen', version: 1 } }];

describe('catalogueDisagreements', () => {
  it('finds none when handlers and SQL match the catalogue', () => {
    expect(
      catalogueDisagreements(catalogue, {
        service: 'watcher',
        handlers: [handler('thing.made')],
        published: seen,
        migrationsDirs: [migrations(trigger('thing.seen', 'watcher'))],
      }),
    ).toEqual([]);
  });

  it('names a handled type the catalogue does not list, and a listed one nobody handles', () => {
    expect(
      catalogueDisagreements(catalogue, {
        service: 'watcher',
        handlers: [handler('thing.made', 2)],
        published: seen,
        migrationsDirs: [],
      }),
    ).toEqual([
      'the catalogue lists watcher as consuming thing.made@1, but it has no handler for it',
      'watcher handles thing.made@2, but the catalogue does not list it as a consumer',
    ]);
  });

  it('names an event the service says it publishes that the catalogue gives another, and one it leaves out', () => {
    const published = [{ event: { type: 'thing.made', version: 1 } }];
    expect(
      catalogueDisagreements(catalogue, {
        service: 'watcher',
        handlers: [handler('thing.made')],
        published,
        migrationsDirs: [],
      }),
    ).toEqual([
      'the catalogue names watcher the producer of thing.seen@1, but its published events do not list it',
      'watcher says it publishes thing.made@1, but the catalogue does not name it the producer',
    ]);
  });

  it('names SQL that writes an event the published list leaves out', () => {
    const dir = migrations(trigger('thing.seen', 'watcher'));
    expect(
      catalogueDisagreements(catalogue, {
        service: 'watcher',
        handlers: [handler('thing.made')],
        published: [],
        migrationsDirs: [dir],
      }),
    ).toContain(`${join(dir, '001_things.sql')} writes thing.seen@1, but watcher's published events do not list it`);
  });

  it('names SQL that writes an undeclared event, or another service’s event', () => {
    const undeclared = migrations(trigger('thing.lost', 'watcher'));
    const foreign = migrations(trigger('thing.made', 'watcher'));
    expect(
      catalogueDisagreements(catalogue, {
        service: 'watcher',
        handlers: [handler('thing.made')],
        published: seen,
        migrationsDirs: [undeclared, foreign],
      }),
    ).toEqual(
      [
        `${join(foreign, '001_things.sql')} writes thing.made@1 as watcher from watcher, but the catalogue says maker produces it`,
        `${join(undeclared, '001_things.sql')} writes thing.lost@1, which the catalogue does not list`,
      ].sort(),
    );
  });

  it('does not pass SQL whose envelope it cannot read', () => {
    const dir = migrations('INSERT INTO outbox (id, type, payload) SELECT id, kind, to_jsonb(t) FROM things t;');
    expect(sqlOutboxWrites(dir)).toEqual([
      { file: join(dir, '001_things.sql'), type: undefined, version: undefined, producer: undefined },
    ]);
    expect(
      catalogueDisagreements(catalogue, {
        service: 'watcher',
        handlers: [handler('thing.made')],
        published: seen,
        migrationsDirs: [dir],
      }),
    ).toHaveLength(1);
  });

  it('reads each call of an envelope function as the event it writes, with the producer its INSERT names', () => {
    const dir = migrations(`-- Up Migration
CREATE FUNCTION write_event(event_type text, event_version integer, data jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox (id, type, payload) VALUES (gen_random_uuid(), event_type, jsonb_build_object(
    'type', event_type, 'version', event_version, 'producer', 'watcher', 'data', data));
END;
$$;
CREATE FUNCTION announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM write_event('thing.seen', 1, jsonb_build_object('id', NEW.id));
  PERFORM write_event('thing.lost', 1, jsonb_build_object('id', NEW.id));
  PERFORM write_event(some_type, 1, '{}');
  RETURN NULL;
END;
$$;
-- Down Migration
DROP FUNCTION write_event(text, integer, jsonb);
`);
    const file = join(dir, '001_things.sql');
    expect(sqlOutboxWrites(dir)).toEqual([
      { file, type: 'thing.seen', version: 1, producer: 'watcher' },
      { file, type: 'thing.lost', version: 1, producer: 'watcher' },
      { file, type: undefined, version: 1, producer: 'watcher' },
    ]);
  });

  it('ignores comments and SQL that does not write to the outbox', () => {
    expect(
      sqlOutboxWrites(
        migrations(
          '-- INSERT INTO outbox is done by the app\nCREATE TABLE outbox_copy (id uuid);\nINSERT INTO outboxes VALUES (1);',
        ),
      ),
    ).toEqual([]);
  });
});
