// The gateway's merged OpenAPI document, composed in this process, and its lint.
//
// Every service's app is built from its definition (`src/service.ts`) as the runtime builds it and asked for
// its document as the gateway asks for `/openapi.json`; the documents are merged by the gateway's own
// `mergeOpenApi`. Nothing listens, and no database or broker is needed (the pool is never queried). It runs
// the built code, as `npm start` does: build first (`tsc -b`).
//
//   node scripts/openapi.mjs build [out]   writes the document (default generated/openapi.json)
//   node scripts/openapi.mjs lint [out]    writes it, then lints it with Redocly (redocly.yaml): any error
//                                          or warning fails
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { createPool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { composeService, promptsUnsent } from '@recipes/runtime';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_DOCUMENT = resolve(root, 'generated/openapi.json');
const builtModule = (service, file) => import(pathToFileURL(resolve(root, 'services', service, 'dist', file)).href);

/** The service definition a service's `service.js` exports: the one named after the service. */
function definitionIn(module, service) {
  const definition = Object.values(module).find(
    (value) =>
      typeof value === 'object' && value !== null && value.name === service && typeof value.routes === 'function',
  );
  if (!definition)
    throw new Error(`services/${service}/dist/service.js exports no service definition named '${service}'`);
  return definition;
}

/** `service`'s own OpenAPI document, as its `/openapi.json` serves it. */
export async function serviceDocument(service) {
  const definition = definitionIn(await builtModule(service, 'service.js'), service);
  const logger = createLogger({ service, level: 'silent' });
  // Never connected: composing routes makes no query.
  const config = parseConfig(definition.configSchema, { DATABASE_URL: 'postgres://openapi@127.0.0.1:9/none' });
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: service,
    applicationName: 'openapi',
    logger,
  });
  const { app } = await composeService(definition, {
    config,
    keys: generateSigningKeyPair(),
    pool,
    logger,
    prompts: promptsUnsent,
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await pool.end();
  }
}

/**
 * The document the gateway serves at `/docs/json` when every service is up; throws when a service cannot say its own.
 */
export async function mergedDocument() {
  const [{ mergeOpenApi }, { services }] = await Promise.all([
    builtModule('gateway', 'openapi-merge.js'),
    builtModule('gateway', 'route-table.js'),
  ]);
  const documents = [];
  for (const service of services) documents.push({ service, document: await serviceDocument(service) });
  return mergeOpenApi(documents);
}

export function writeDocument(document, out = DEFAULT_DOCUMENT) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  return out;
}

/**
 * Redocly's lint of the document at `file` with the project's redocly.yaml (the recommended rules): every
 * problem, errors and warnings alike, as `{ ruleId, severity, message, pointer }`.
 */
export function lintDocument(file, { config = resolve(root, 'redocly.yaml') } = {}) {
  const result = spawnSync(
    resolve(root, 'node_modules/.bin/redocly'),
    ['lint', '--config', config, '--format', 'json', '--max-problems', '10000', file],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`redocly lint did not report (exit ${result.status}): ${result.error ?? ''}${result.stderr}`);
  }
  return report.problems.map(({ ruleId, severity, message, location }) => ({
    ruleId,
    severity,
    message,
    pointer: location?.[0]?.pointer,
  }));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command = 'build', out = DEFAULT_DOCUMENT] = process.argv.slice(2);
  if (command !== 'build' && command !== 'lint') throw new Error(`unknown command '${command}': build or lint`);
  const file = writeDocument(await mergedDocument(), resolve(out));
  console.log(`openapi: wrote ${relative(process.cwd(), file)}`);
  if (command === 'lint') {
    const problems = lintDocument(file);
    for (const { severity, ruleId, message, pointer } of problems)
      console.log(`  ${severity.padEnd(7)} ${ruleId}  ${message}  (${pointer})`);
    const count = (severity) => problems.filter((problem) => problem.severity === severity).length;
    console.log(`openapi: redocly lint (recommended): ${count('error')} errors, ${count('warn')} warnings`);
    if (problems.length > 0) process.exitCode = 1;
  }
}
