// docs/architecture.md's table of every trigger, from the migrations as they run (their Up parts, in
// order): which table fires it and when, what its function writes, which event it writes to the outbox,
// and why it is a trigger (its COMMENT ON TRIGGER).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The migration sets, as `migrationSetsOf` (libs/runtime) runs them into the schemas that use them. */
export const SETS = [
  { owner: 'libs/outbox (every service)', dir: 'libs/outbox/migrations' },
  { owner: 'libs/idempotency', dir: 'libs/idempotency/migrations' },
  { owner: 'libs/db (budgets)', dir: 'libs/db/budget-migrations' },
  { owner: 'libs/directory (users)', dir: 'libs/directory/users-migrations' },
  { owner: 'libs/directory (content)', dir: 'libs/directory/content-migrations' },
  { owner: 'libs/directory (collections)', dir: 'libs/directory/collection-migrations' },
  { owner: 'libs/directory (relations)', dir: 'libs/directory/relation-migrations' },
  { owner: 'libs/runtime (ended sessions)', dir: 'libs/runtime/migrations/ended-sessions' },
  ...['users', 'content', 'comments', 'collections', 'notifications'].map((name) => ({
    owner: name,
    dir: `services/${name}/migrations`,
  })),
];

/** `CREATE TRIGGER name timing events ON table … EXECUTE FUNCTION fn(args)`, in its parts. */
const CREATE_TRIGGER = new RegExp(
  String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?TRIGGER\s+(\w+)\s+(BEFORE|AFTER|INSTEAD\s+OF)\s+([\s\S]+?)\s+ON\s+(\w+)\s+` +
    String.raw`([\s\S]*?)EXECUTE\s+(?:FUNCTION|PROCEDURE)\s+(\w+)\s*\(([^)]*)\)`,
  'i',
);

/** The statements of a migration's Up part, without comments; dollar-quoted bodies kept whole. */
export function upStatements(sql) {
  // Comments go first (their apostrophes would open strings); no migration has `--` inside a string.
  const up = sql.split(/^--\s*Down Migration/m)[0].replace(/--.*$/gm, '');
  const statements = [];
  let current = '';
  for (const piece of up.split(/(\$\$[\s\S]*?\$\$|'(?:[^']|'')*')/)) {
    if (piece.startsWith('$$') || piece.startsWith("'")) current += piece;
    else {
      const parts = piece.split(';');
      current += parts[0];
      for (const part of parts.slice(1)) {
        statements.push(current.trim());
        current = part;
      }
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements.filter((statement) => statement !== '');
}

/**
 * Every statement of every set's migrations as they run (their Up parts, set by set, file by file in order), with
 * the set's owner and the file it is in.
 */
export function* migrationStatements(root) {
  for (const { owner, dir } of SETS) {
    if (!existsSync(join(root, dir))) continue;
    for (const file of readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.sql'))
      .sort())
      for (const statement of upStatements(readFileSync(join(root, dir, file), 'utf8')))
        yield { owner, file: `${dir}/${file}`, statement };
  }
}

/** Replays the sets' triggers and functions, statement by statement: what is left at the end. */
export function triggersOf(root) {
  const triggers = new Map();
  const functions = new Map();
  for (const { owner, file, statement } of migrationStatements(root)) {
    const created = CREATE_TRIGGER.exec(statement);
    if (created) {
      const [, name, timing, events, table, rest, fn, args] = created;
      const level = /FOR\s+EACH\s+STATEMENT/i.test(rest)
        ? 'each statement'
        : /FOR\s+EACH\s+ROW/i.test(rest)
          ? 'each row'
          : 'each statement';
      const when = /WHEN\s*\(([\s\S]*)\)\s*$/i.exec(rest.trim())?.[1];
      triggers.set(`${name} ON ${table}`, {
        owner,
        name,
        table,
        when: [`${timing} ${events}`.replace(/\s+/g, ' '), level, when && `when ${when.replace(/\s+/g, ' ')}`]
          .filter(Boolean)
          .join(', '),
        fn,
        args: args.trim(),
        file,
        why: undefined,
      });
      continue;
    }
    const dropped = /^DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(\w+)\s+ON\s+(\w+)/i.exec(statement);
    if (dropped) {
      triggers.delete(`${dropped[1]} ON ${dropped[2]}`);
      continue;
    }
    const comment = /^COMMENT\s+ON\s+TRIGGER\s+(\w+)\s+ON\s+(\w+)\s+IS\s+(NULL|'((?:[^']|'')*)')/i.exec(statement);
    if (comment) {
      const trigger = triggers.get(`${comment[1]} ON ${comment[2]}`);
      if (trigger) trigger.why = comment[4]?.replaceAll("''", "'");
      continue;
    }
    const fn = /^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)\s*\([\s\S]*?\$\$([\s\S]*)\$\$/i.exec(statement);
    if (fn) functions.set(fn[1], { body: fn[2], file });
  }
  return { triggers: [...triggers.values()], functions };
}

/**
 * What a function's body writes (tables, NOTIFY, a notice), and the events it writes, following the functions it calls.
 */
function effectsOf(name, functions, seen = new Set()) {
  const writes = new Set();
  const events = new Set();
  const body = functions.get(name)?.body;
  if (body === undefined || seen.has(name)) return { writes, events };
  seen.add(name);
  for (const [, table] of body.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?!SET\b)(\w+)/gi))
    writes.add(table);
  if (/pg_notify\s*\(/i.test(body)) writes.add('NOTIFY');
  if (/RAISE\s+NOTICE/i.test(body)) writes.add('a notice to its connection');
  for (const [, type] of body.matchAll(/'type'\s*,\s*'([a-z_.]+)'/g)) events.add(type);
  for (const [, type] of body.matchAll(/\bwrite_event\s*\(\s*'([a-z_.]+)'/g)) events.add(type);
  for (const [, called] of body.matchAll(/\b(\w+)\s*\(/g)) {
    if (called === name || !functions.has(called)) continue;
    const inner = effectsOf(called, functions, seen);
    inner.writes.forEach((table) => writes.add(table));
    inner.events.forEach((type) => events.add(type));
  }
  return { writes, events };
}

const cell = (text) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const list = (items) =>
  items.size === 0 ? '' : [...items].map((item) => (item.includes(' ') ? item : `\`${item}\``)).join(', ');

/** One row per trigger function and firing, its tables together, with what it writes and why. */
export function triggerRows(root) {
  const { triggers, functions } = triggersOf(root);
  const rows = new Map();
  for (const trigger of triggers) {
    const key = [trigger.owner, trigger.name, trigger.when, trigger.fn, trigger.why].join('\u0000');
    const row = rows.get(key) ?? { ...trigger, tables: [] };
    row.tables.push(trigger.table);
    rows.set(key, row);
  }
  return [...rows.values()].map((row) => {
    const { writes, events } = effectsOf(row.fn, functions);
    const fnFile = functions.get(row.fn)?.file;
    const where = fnFile && fnFile !== row.file ? `${row.file}; its function as of ${fnFile}` : row.file;
    return { ...row, where, writes: [...writes], events: [...events] };
  });
}

export function triggerTable(rows) {
  const lines = rows.map((row) => {
    const why = row.why ?? '**no reason given** (COMMENT ON TRIGGER in a new migration)';
    return (
      `| ${row.owner} | \`${row.name}\` (\`${row.fn}\`, ${row.where}) | ${list(new Set(row.tables))} | ` +
      `${cell(row.when)} | ${list(new Set(row.writes))} | ${list(new Set(row.events))} | ${cell(why)} |`
    );
  });
  return [
    '| Schema of | Trigger (function, migration) | On | When | Writes | Event | Why a trigger |',
    '|---|---|---|---|---|---|---|',
    ...lines,
  ].join('\n');
}
