import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The boundary rule (.dependency-cruiser.cjs, `npm run lint:boundaries`): which package may import which.
 * It is run as CI runs it, on a small tree made here with one import of each forbidden kind, and on the
 * real tree, which must have none.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const configFile = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const { allowedLibraryImports } = createRequire(import.meta.url)(configFile) as {
  allowedLibraryImports: Record<string, string[]>;
};

interface Violation {
  rule: { name: string; severity: string };
  from: string;
  to: string;
  /** For a cycle: the modules around it, from `to` back to `from`. */
  cycle?: { name: string }[];
}

/** The violations the rule finds in `libs` and `services` under `cwd`. */
function cruise(cwd: string): Violation[] {
  const run = spawnSync(
    process.execPath,
    [depcruise, 'libs', 'services', '--config', configFile, '--output-type', 'json'],
    {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (run.error) throw run.error;
  if (!run.stdout) throw new Error(`depcruise printed nothing (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout).summary.violations;
}

/** Runs `npm run lint:boundaries` (part of `npm run lint`, which CI runs) as it is written, in `cwd`; its exit code. */
function lintBoundaries(cwd: string): number | null {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts['lint:boundaries'];
  const [command, ...args] = script.split(/\s+/);
  expect(command).toBe('depcruise');
  const run = spawnSync(
    process.execPath,
    [depcruise, ...args.map((arg) => (arg === '.dependency-cruiser.cjs' ? configFile : arg))],
    { cwd, encoding: 'utf8' },
  );
  if (run.error) throw run.error;
  return run.status;
}

/** One line per violation; a cycle by its modules, whichever of them it was found from. */
const summary = (violations: Violation[], severity: string) =>
  violations
    .filter((violation) => violation.rule.severity === severity)
    .map(({ rule, from, to, cycle }) =>
      cycle
        ? `${rule.name}: ${[...new Set([from, ...cycle.map((step) => step.name)])].sort().join(' ⇄ ')}`
        : `${rule.name}: ${from} → ${to}`,
    )
    .sort();

describe('the boundary rule on a tree with one forbidden import of each kind', () => {
  let fixture: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(fixture, path)), { recursive: true });
    writeFileSync(join(fixture, path), text);
  };
  /** A workspace library, linked under node_modules as npm links it. */
  const library = (name: string, source: string) => {
    const exports = { '.': { '@recipes/source': './src/index.ts', default: './dist/index.js' } };
    write(`libs/${name}/package.json`, JSON.stringify({ name: `@recipes/${name}`, type: 'module', exports }));
    write(`libs/${name}/src/index.ts`, source);
    mkdirSync(join(fixture, 'node_modules', '@recipes'), { recursive: true });
    symlinkSync(join('..', '..', 'libs', name), join(fixture, 'node_modules', '@recipes', name), 'dir');
  };

  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), 'boundaries-'));
    write(
      'node_modules/fastify/package.json',
      JSON.stringify({ name: 'fastify', main: 'fastify.js', types: 'fastify.d.ts' }),
    );
    write('node_modules/fastify/fastify.js', 'module.exports = function fastify() {};\n');
    write('node_modules/fastify/fastify.d.ts', 'export interface FastifyReply { code(status: number): this }\n');

    // What is allowed: each of these imports follows the layers.
    library('contracts', "export const contracts = 'contracts';\n");
    library('logging', "export const logging = 'logging';\n");
    library('metrics', "export const metrics = 'metrics';\n");
    library(
      'http',
      "export { contracts } from '@recipes/contracts';\nexport { logging } from '@recipes/logging';\nexport " +
        "{ metrics } from '@recipes/metrics';\nexport class HttpError extends Error {}\n",
    );
    library('runtime', "export { HttpError } from '@recipes/http';\n");
    library('testing', "export { HttpError } from '@recipes/runtime';\n");
    library('directory', "export { contracts } from '@recipes/contracts';\n");
    write('services/beta/src/beta.ts', "export const beta = 'beta';\n");
    write(
      'services/alpha/src/service.ts',
      "import fastify from 'fastify';\nimport { HttpError } from '@recipes/http';\nexport const service = [fastify, HttpError];\n",
    );
    write(
      'services/alpha/src/routes/things/index.ts',
      "import type { FastifyReply } from 'fastify';\nimport { HttpError } from " +
        "'@recipes/http';\nexport const refuse = (reply: FastifyReply) => [reply, HttpError];\n",
    );
    write(
      'services/alpha/src/things.ts',
      "import { contracts } from '@recipes/contracts';\nexport const things = contracts;\n",
    );

    // What is not.
    write('libs/contracts/src/leak.ts', "import { logging } from '@recipes/logging';\nexport const leak = logging;\n");
    write(
      'libs/logging/src/helpers.ts',
      "import { HttpError } from '@recipes/testing';\nexport const helpers = HttpError;\n",
    );
    write(
      'libs/directory/src/answers.ts',
      "import type { HttpError } from '@recipes/http';\nexport type Answer = HttpError;\n",
    );
    write(
      'libs/directory/src/wiring.ts',
      "import { HttpError } from '@recipes/runtime';\nexport const wiring = HttpError;\n",
    );
    write(
      'libs/directory/src/borrowed.ts',
      "import { beta } from '../../../services/beta/src/beta.js';\nexport const borrowed = beta;\n",
    );
    write('services/alpha/src/peek.ts', "import { beta } from '../../beta/src/beta.js';\nexport const peek = beta;\n");
    write(
      'services/alpha/test/peek.test.ts',
      "import { beta } from '../../beta/src/beta.js';\nexport const peek = beta;\n",
    );
    write(
      'services/alpha/src/by-path.ts',
      "import { contracts } from '../../../libs/contracts/src/index.js';\nexport const byPath = contracts;\n",
    );
    write(
      'services/alpha/src/stubbed.ts',
      "import { HttpError } from '@recipes/testing';\nexport const stubbed = HttpError;\n",
    );
    write(
      'services/alpha/src/domain.ts',
      "import type { FastifyReply } from 'fastify';\nexport const domain = (reply: FastifyReply) => reply;\n",
    );
    write(
      'services/alpha/src/repository.ts',
      "import { HttpError } from '@recipes/http';\nexport const repository = HttpError;\n",
    );
    write('services/alpha/src/ping.ts', "import { pong } from './pong.js';\nexport const ping = () => pong;\n");
    write('services/alpha/src/pong.ts', "import { ping } from './ping.js';\nexport const pong = () => ping;\n");
    // A cycle closed by a type only: forbidden as well.
    write(
      'services/alpha/src/parts.ts',
      "import type { Handlers } from './handlers.js';\nexport type Parts = { handlers?: Handlers };\n",
    );
    write(
      'services/alpha/src/handlers.ts',
      "import type { Parts } from './parts.js';\nexport type Handlers = (parts: Parts) => void;\nexport const none: Handlers = () => undefined;\n",
    );
  });
  afterAll(() => {
    if (fixture) rmSync(fixture, { recursive: true, force: true });
  });

  it('reports each forbidden import, and nothing else, and fails', { timeout: 60_000 }, () => {
    const violations = cruise(fixture);
    expect(summary(violations, 'error')).toEqual(
      [
        'layers-contracts: libs/contracts/src/leak.ts → libs/logging/src/index.ts',
        'layers-logging: libs/logging/src/helpers.ts → libs/testing/src/index.ts',
        'layers-directory: libs/directory/src/answers.ts → libs/http/src/index.ts',
        'layers-directory: libs/directory/src/wiring.ts → libs/runtime/src/index.ts',
        'no-services-in-libs: libs/directory/src/borrowed.ts → services/beta/src/beta.ts',
        'packages-by-name: libs/directory/src/borrowed.ts → services/beta/src/beta.ts',
        'no-cross-service: services/alpha/src/peek.ts → services/beta/src/beta.ts',
        'no-cross-service: services/alpha/test/peek.test.ts → services/beta/src/beta.ts',
        'packages-by-name: services/alpha/src/peek.ts → services/beta/src/beta.ts',
        'packages-by-name: services/alpha/test/peek.test.ts → services/beta/src/beta.ts',
        'packages-by-name: services/alpha/src/by-path.ts → libs/contracts/src/index.ts',
        'no-testing-in-services: services/alpha/src/stubbed.ts → libs/testing/src/index.ts',
        'http-only-in-routes: services/alpha/src/domain.ts → node_modules/fastify/fastify.js',
        'http-only-in-routes: services/alpha/src/repository.ts → libs/http/src/index.ts',
        'no-circular: services/alpha/src/ping.ts ⇄ services/alpha/src/pong.ts',
        'no-circular-types: services/alpha/src/handlers.ts ⇄ services/alpha/src/parts.ts',
      ].sort(),
    );
    expect(summary(violations, 'warn')).toEqual([]);
    expect(lintBoundaries(fixture)).not.toBe(0);
  });
});

describe('the boundary rule on the real tree', () => {
  it('finds no forbidden import', { timeout: 60_000 }, () => {
    expect(summary(cruise(root), 'error')).toEqual([]);
    expect(lintBoundaries(root)).toBe(0);
  });

  it('allows each library exactly the libraries its package.json depends on, and there is one entry per library', () => {
    const libraries = readdirSync(join(root, 'libs'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(allowedLibraryImports).sort()).toEqual(libraries);
    for (const library of libraries) {
      const manifest = JSON.parse(readFileSync(join(root, 'libs', library, 'package.json'), 'utf8'));
      const declared = Object.keys(manifest.dependencies ?? {})
        .filter((name) => name.startsWith('@recipes/'))
        .map((name) => name.slice('@recipes/'.length))
        .sort();
      expect([library, ...[...allowedLibraryImports[library]!].sort()]).toEqual([library, ...declared]);
    }
  });

  it('layers the libraries: the allowed imports have no cycle', () => {
    const placed = new Set<string>();
    let remaining = Object.keys(allowedLibraryImports);
    while (remaining.length > 0) {
      const next = remaining.filter((library) =>
        allowedLibraryImports[library]!.every((dependency) => placed.has(dependency)),
      );
      expect(next, `a cycle among ${remaining.join(', ')}`).not.toEqual([]);
      for (const library of next) placed.add(library);
      remaining = remaining.filter((library) => !placed.has(library));
    }
  });
});
