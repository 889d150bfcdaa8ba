// The parts of the documents that scripts write from their sources, and the check of every section
// reference. It reads the built config schemas, as `npm start` runs them: build first (`tsc -b`).
//
//   node scripts/docs.mjs write   rewrites the generated parts: docs/configuration.md's settings (from the
//                                 zod config schemas), docs/architecture.md's routes (from each service.ts
//                                 and the imports of its route files), events (from the catalogue, the
//                                 published.ts files and the handlers) and triggers (from the migrations),
//                                 and the notifications migration of store_notifications (from src/rules)
//   node scripts/docs.mjs check   fails (exit 1, one line each) when a generated part differs from what
//                                 write would make, a section reference names no section, or a document
//                                 names in backquotes a file that does not exist or a function that no
//                                 source defines (scripts/docs/named-sources.mjs), or leaves out a stream
//                                 event or notification type (scripts/docs/stream-vocabulary.mjs)
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchemas, configTable } from './docs/config-reference.mjs';
import { updatePart } from './docs/generated-part.mjs';
import { staleReferences } from './docs/section-references.mjs';
import { unknownNames } from './docs/named-sources.mjs';
import { eventTable } from './docs/event-map.mjs';
import { routeTable } from './docs/route-map.mjs';
import { ruleMigration } from './docs/rule-migration.mjs';
import { unlistedTables } from './docs/table-list.mjs';
import { unnamedVocabulary } from './docs/stream-vocabulary.mjs';
import { triggerRows, triggerTable } from './docs/trigger-table.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const mode = process.argv[2];
if (mode !== 'write' && mode !== 'check') {
  console.error('usage: node scripts/docs.mjs write|check');
  process.exit(2);
}
const check = mode === 'check';

const architecture = resolve(root, 'docs/architecture.md');
// First, so that the tables below see a migration it writes.
const ruleProblem = await ruleMigration(root, { check });
const triggers = triggerRows(root);
const problems = [
  updatePart(resolve(root, 'docs/configuration.md'), 'settings', configTable(await configSchemas()), { check }),
  updatePart(architecture, 'routes', routeTable(root), { check }),
  updatePart(architecture, 'events', await eventTable(root, triggers), { check }),
  updatePart(architecture, 'triggers', triggerTable(triggers), { check }),
  ...staleReferences(root),
  ...unlistedTables(root),
  ...unknownNames(root),
  ...(await unnamedVocabulary(root)),
  ruleProblem,
].filter((problem) => problem !== undefined);

for (const problem of problems) console.error(problem);
process.exit(problems.length === 0 ? 0 : 1);
