// docs/architecture.md's table from a URL prefix to its route file and to the SQL it runs: each service's
// src/service.ts registers a route plugin under a prefix; the plugin's relative imports, followed through
// the domain modules they reach, end in the modules that hold its SQL (repositories, and any other module
// with a statement in it).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SERVICES = ['users', 'content', 'comments', 'collections', 'notifications'];

/** The relative modules `file` imports (types too), as paths of .ts files. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)]
    .map(([, path]) => resolve(dirname(file), `${path}.ts`))
    .filter((path) => existsSync(path));
}

/** Every module reachable from `file` by relative imports, not through the service's wiring (parts, service). */
function reachable(file) {
  const seen = new Set([file]);
  const queue = [file];
  while (queue.length > 0) {
    for (const next of importsOf(queue.shift())) {
      if (seen.has(next) || /\/src\/(parts|service)\.ts$/.test(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return [...seen];
}

/** Whether `file` holds SQL: a template literal that starts a statement. */
const holdsSql = (file) =>
  /`\s*(?:WITH|SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/.test(readFileSync(file, 'utf8'));

/** Rows of { prefix, service, routes, sql } for every route plugin each service registers. */
export function routeMap(root) {
  const rows = [];
  for (const service of SERVICES) {
    const serviceFile = join(root, 'services', service, 'src', 'service.ts');
    const text = readFileSync(serviceFile, 'utf8');
    const imported = new Map(
      [...text.matchAll(/import\s+(\w+)\s+from\s+'(\.\/routes\/[^']+)\.js'/g)].map(([, name, path]) => [
        name,
        `${path}.ts`,
      ]),
    );
    for (const [, plugin, prefix] of text.matchAll(/\.register\(\s*(\w+)\s*,\s*\{[^}]*?prefix:\s*'([^']+)'/g)) {
      const routeFile = imported.get(plugin);
      if (!routeFile) continue;
      const modules = reachable(resolve(dirname(serviceFile), routeFile));
      const rel = (file) => relative(root, file);
      rows.push({
        prefix,
        service,
        routes: modules.filter((file) => file.includes('/src/routes/')).map(rel),
        sql: modules.filter((file) => !file.includes('/src/routes/') && holdsSql(file)).map(rel),
      });
    }
  }
  return rows;
}

const files = (list) => list.map((file) => `\`${file}\``).join(', ');

export function routeTable(root) {
  const lines = routeMap(root).map(
    ({ prefix, service, routes, sql }) => `| \`${prefix}\` | ${service} | ${files(routes)} | ${files(sql)} |`,
  );
  return ['| Prefix | Service | Routes (hop 1) | SQL (hop 2) |', '|---|---|---|---|', ...lines].join('\n');
}
