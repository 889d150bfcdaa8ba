// docs/configuration.md's table of settings, from the zod schemas of every process (each service's
// src/config.ts, built from @recipes/config's groups): a setting's `.describe()` is its meaning, its
// `.default()` its default, the processes whose schema has it its users.
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BACKENDS = ['users', 'content', 'comments', 'collections', 'notifications'];
const PROCESSES = [...BACKENDS, 'gateway'];

/** The config schema each built service exports (`<name>ConfigSchema` in src/config.ts). */
export async function configSchemas() {
  const schemas = {};
  for (const name of PROCESSES) {
    const module = await import(pathToFileURL(resolve(root, 'services', name, 'dist', 'config.js')).href);
    schemas[name] = module[`${name}ConfigSchema`];
    if (!schemas[name]) throw new Error(`services/${name}/src/config.ts exports no ${name}ConfigSchema`);
  }
  return schemas;
}

/** The raw default of a setting's schema (before its transforms), or undefined when it has none. */
function defaultOf(schema) {
  const def = schema.def;
  if (def.type === 'default') return def.defaultValue;
  if (def.type === 'pipe') return defaultOf(def.in);
  if (def.type === 'optional' || def.type === 'nullable') return defaultOf(def.innerType);
  return undefined;
}

const code = (value) => (value === undefined ? 'none' : `\`${String(value)}\``);
const cell = (text) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** `values` (one per process) as one text: the common one, or each with the processes that have it. */
function merged(values, render) {
  const groups = new Map();
  for (const [process, value] of values) {
    const key = render(value);
    groups.set(key, [...(groups.get(key) ?? []), process]);
  }
  if (groups.size === 1) return [...groups.keys()][0];
  return [...groups].map(([text, processes]) => `${text} (${processes.join(', ')})`).join('; ');
}

function usedBy(processes) {
  if (processes.length === PROCESSES.length) return 'all';
  if (processes.length === BACKENDS.length && BACKENDS.every((name) => processes.includes(name))) return 'services';
  return processes.join(', ');
}

/** The markdown table of every setting, in the order of the schemas (shared groups first). */
export function configTable(schemas) {
  const settings = new Map();
  for (const [process, schema] of Object.entries(schemas)) {
    for (const [variable, field] of Object.entries(schema.shape)) {
      if (!field.description) throw new Error(`${variable} in services/${process}/src/config.ts has no .describe()`);
      const entry = settings.get(variable) ?? { defaults: [], meanings: [] };
      entry.defaults.push([process, defaultOf(field)]);
      entry.meanings.push([process, field.description]);
      settings.set(variable, entry);
    }
  }
  const rows = [...settings].map(([variable, { defaults, meanings }]) => {
    const processes = defaults.map(([process]) => process);
    return `| \`${variable}\` | ${cell(merged(defaults, code))} | ${usedBy(processes)} | ${cell(merged(meanings, (text) => text))} |`;
  });
  return ['| Variable | Default | Used by | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
