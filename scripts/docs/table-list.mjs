// Every table a migration creates (and none drops later) is named, in backquotes, in the list of what each
// service and library owns (docs/architecture.md §1): a table added without a word there is a problem the
// docs check reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationStatements } from './trigger-table.mjs';

/** The tables left after every set's migrations ran, each with the migration that created it. */
export function tablesOf(root) {
  const tables = new Map();
  for (const { file, statement } of migrationStatements(root)) {
    const created = /^CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:\w+\.)?(\w+)/i.exec(statement);
    if (created) tables.set(created[1], file);
    const dropped = /^DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:\w+\.)?(\w+)/i.exec(statement);
    if (dropped) tables.delete(dropped[1]);
    const renamed = /^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:\w+\.)?(\w+)\s+RENAME\s+TO\s+(\w+)/i.exec(statement);
    if (renamed && tables.has(renamed[1])) {
      tables.set(renamed[2], tables.get(renamed[1]));
      tables.delete(renamed[1]);
    }
  }
  return tables;
}

/** One problem line for each table that docs/architecture.md §1 does not name. */
export function unlistedTables(root) {
  const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const sectionOne = /^## 1\.[\s\S]*?(?=^## 2\.)/m.exec(architecture)?.[0] ?? '';
  return [...tablesOf(root)]
    .filter(([table]) => !sectionOne.includes(`\`${table}\``))
    .map(([table, file]) => `docs/architecture.md §1 does not name the table \`${table}\` (${file})`);
}
