// The words a client codes against, named where a client reads them: every event of the notification stream in
// docs/api.md §9 and in the browser's listeners of docs/browser-streams.md, and every notification type in
// docs/api.md §7. Read from the built notifications service, so that an event or type added to the code and
// left out of the docs is a problem the docs check reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const built = (root, file) => import(pathToFileURL(join(root, 'services/notifications/dist', file)).href);

/** The text of `## <number>.` up to the next section of the same level. */
function section(markdown, number) {
  return new RegExp(`^## ${number}\\.[\\s\\S]*?(?=^## \\d)`, 'm').exec(markdown)?.[0] ?? '';
}

/** One problem line for each stream event or notification type a document leaves out. */
export async function unnamedVocabulary(root) {
  const [{ streamEventNames }, { notificationTypes }] = await Promise.all([
    built(root, 'stream/events.js'),
    built(root, 'repository/rows.js'),
  ]);
  const api = readFileSync(join(root, 'docs/api.md'), 'utf8');
  const browser = readFileSync(join(root, 'docs/browser-streams.md'), 'utf8');
  const streams = section(api, 9);
  const notifications = section(api, 7);
  return [
    ...streamEventNames
      .filter((name) => !streams.includes(`\`${name}\``) && !streams.includes(`event: ${name}`))
      .map((name) => `docs/api.md §9 does not name the stream event \`${name}\``),
    ...streamEventNames
      .filter((name) => !browser.includes(`addEventListener('${name}'`))
      .map((name) => `docs/browser-streams.md does not listen for the stream event \`${name}\``),
    ...notificationTypes
      .filter((type) => !notifications.includes(`\`${type}\``))
      .map((type) => `docs/api.md §7 does not name the notification type \`${type}\``),
  ];
}
