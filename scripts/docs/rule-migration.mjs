// The notifications service's `store_notifications` is rendered from its rules (services/notifications/src/rules):
// the latest migration that creates it must hold what they render. `write` adds a migration when it does not;
// `check` names the difference. Build first (`tsc -b`).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { upStatements } from './trigger-table.mjs';

const DIR = 'services/notifications/migrations';
const CREATES = /^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+store_notifications\s*\(/i;

/** The text without comments, `OR REPLACE` or differences of white space. */
const normalized = (statement) =>
  statement
    .replace(/--.*$/gm, '')
    .replace(/^CREATE\s+OR\s+REPLACE\s+/i, 'CREATE ')
    .replace(/\s+/g, ' ')
    .trim();

/** The migration files in order, and the last `CREATE FUNCTION store_notifications` among them. */
function latestDefinition(root) {
  const files = readdirSync(join(root, DIR))
    .filter((name) => name.endsWith('.sql'))
    .sort();
  let latest;
  for (const file of files)
    for (const statement of upStatements(readFileSync(join(root, DIR, file), 'utf8')))
      if (CREATES.test(statement)) latest = statement;
  return { files, latest };
}

/** `store_notifications(uuid[], …)`: the signature of a `CREATE FUNCTION store_notifications` statement. */
function signatureOf(statement) {
  const args = /store_notifications\s*\(([\s\S]*?)\)\s*RETURNS/i.exec(statement)[1];
  const types = args.split(',').map((arg) => arg.trim().split(/\s+/).at(-1));
  return `store_notifications(${types.join(', ')})`;
}

/** Undefined when the migrations hold what the rules render; else the problem, after writing a migration in `write`. */
export async function ruleMigration(root, { check }) {
  const { storeNotificationsFunction } = await import(
    join(root, 'services/notifications/dist/rules/store-function.js')
  );
  const { signature, create: rendered } = storeNotificationsFunction();
  const { files, latest } = latestDefinition(root);
  if (latest !== undefined && normalized(latest) === normalized(rendered)) return undefined;
  if (check) return `${DIR}: store_notifications differs from src/rules (run \`npm run docs\` to write its migration)`;
  const number = String(Number(files.at(-1).slice(0, 3)) + 1).padStart(3, '0');
  const file = `${number}_store_notification_rules.sql`;
  writeFileSync(
    join(root, DIR, file),
    `-- Up Migration

-- store_notifications as the rules of src/rules render it (src/rules/store-function.ts): written by
-- \`npm run docs\`, checked by \`npm run lint\`. Each rule that withholds a notification is a file of src/rules.
DROP FUNCTION ${signatureOf(latest)};
${rendered};

-- Down Migration
DROP FUNCTION ${signature};
${latest};
`,
  );
  console.error(`${DIR}/${file}: written`);
  return undefined;
}
