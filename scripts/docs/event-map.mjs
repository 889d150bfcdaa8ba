// docs/architecture.md's table from an event to where it is written and to its handlers: the catalogue
// (@recipes/contracts, built), each producer's src/events/published.ts (built), the triggers that write it,
// and each consumer's handler file, found by the `on(<event>` it calls (in the service, or in
// libs/directory for a read model's handler that the service re-exports).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The handler files of each service, by the event definition name (`userCreated`) their `on(` takes. */
function handlerFiles(root, service, directoryHandlers) {
  const dir = join('services', service, 'src', 'events', 'handlers');
  const byEvent = new Map();
  const add = (name, file) => byEvent.set(name, [...(byEvent.get(name) ?? []), file]);
  if (!existsSync(join(root, dir))) return byEvent;
  for (const file of readdirSync(join(root, dir)).filter((name) => name.endsWith('.ts') && name !== 'index.ts')) {
    const text = readFileSync(join(root, dir, file), 'utf8');
    for (const [, event] of text.matchAll(/\bon\(\s*(\w+)/g)) add(event, `${dir}/${file}`);
    for (const [, names, library] of text.matchAll(/export\s*\{([^}]+)\}\s*from\s*'@recipes\/(directory|runtime)'/g)) {
      for (const name of names.split(',').map((item) => item.trim())) {
        const event = directoryHandlers.get(name);
        if (event)
          add(
            event,
            `${dir}/${file} → ${library === 'directory' ? 'libs/directory/src/handlers.ts' : 'libs/runtime/src/erasure.ts'}`,
          );
      }
    }
  }
  return byEvent;
}

/** The rows of the table: { type, version, producer, writtenBy, handlers: [file] }. */
export async function eventMap(root, triggers) {
  const contracts = await import(pathToFileURL(join(root, 'libs/contracts/dist/index.js')).href);
  const definitions = Object.entries(contracts).filter(
    ([, value]) =>
      value && typeof value === 'object' && typeof value.type === 'string' && Array.isArray(value.consumers),
  );
  // Handlers a library writes once for every service (a read model's, an erasure's), re-exported by each.
  const libraryText = ['libs/directory/src/handlers.ts', 'libs/runtime/src/erasure.ts']
    .map((file) => readFileSync(join(root, file), 'utf8'))
    .join('\n');
  const directoryHandlers = new Map(
    [...libraryText.matchAll(/export const (\w+)\s*=[^;]*?\bon\(\s*(\w+)/g)].map(([, name, event]) => [name, event]),
  );
  // Events every instance of every consuming service hears on a queue of its own (libs/runtime), not a handler of the
  // service's.
  const instanceText = readFileSync(join(root, 'libs/runtime/src/ended-sessions.ts'), 'utf8');
  const instanceHandlers = new Map(
    [...instanceText.matchAll(/\bon\(\s*(\w+)/g)].map(([, event]) => [
      event,
      (consumer) => [`libs/runtime/src/ended-sessions.ts (each ${consumer} instance)`],
    ]),
  );
  const services = ['users', 'content', 'comments', 'collections', 'notifications'];
  const handlersOf = Object.fromEntries(
    services.map((service) => [service, handlerFiles(root, service, directoryHandlers)]),
  );
  const published = {};
  for (const service of services) {
    const module = await import(pathToFileURL(join(root, 'services', service, 'dist/events/published.js')).href);
    published[service] = module.published;
  }
  return definitions
    .sort(([, a], [, b]) => a.type.localeCompare(b.type) || a.version - b.version)
    .map(([name, event]) => ({
      type: event.type,
      version: event.version,
      producer: event.producer,
      writtenBy: published[event.producer]?.find(
        (entry) => entry.event.type === event.type && entry.event.version === event.version,
      )?.from,
      triggers: triggers.filter((trigger) => trigger.events.includes(event.type)).map((trigger) => trigger.name),
      handlers: event.consumers.flatMap(
        (consumer) =>
          handlersOf[consumer]?.get(name) ??
          instanceHandlers.get(name)?.(consumer) ?? [`**no handler in ${consumer}**`],
      ),
    }));
}

export async function eventTable(root, triggers) {
  const rows = await eventMap(root, triggers);
  const lines = rows.map(
    ({ type, version, producer, writtenBy, triggers: names, handlers }) =>
      `| \`${type}\` v${version} | services/${producer}: ` +
      `${writtenBy ?? '**not in its published.ts**'}${
        names.length > 0
          ? ` (trigger ${[...new Set(names)].map((n) => `\`${n}\``).join(', ')}, ` + `in the table of triggers below)`
          : ''
      } ` +
      `| ${handlers.map((file) => `\`${file}\``).join(', ') || "no service's queue"} |`,
  );
  return ['| Event | Written by (hop 1) | Handled by (hop 1) |', '|---|---|---|', ...lines].join('\n');
}
