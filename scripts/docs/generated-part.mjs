// A document part that a script writes: the lines between two markers, the rest of the file left as people
// wrote it. `npm run docs` rewrites the parts; `npm run lint` fails while one differs from what it would write.
import { readFileSync, writeFileSync } from 'node:fs';

const begin = (name) =>
  `<!-- BEGIN ${name}: written by \`npm run docs\`, checked by \`npm run lint\`; edit the source, not this -->`;
const end = (name) => `<!-- END ${name} -->`;

/** The file with the part named `name` replaced by `content`; throws when the file lacks its markers. */
export function withPart(text, name, content) {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`no part '${name}' (its BEGIN and END markers) in the document`);
  return `${text.slice(0, from)}${begin(name)}\n${content.trimEnd()}\n${text.slice(to)}`;
}

/** Writes the part into `file`, or (check) returns a problem when the file's part differs from it. */
export function updatePart(file, name, content, { check }) {
  const text = readFileSync(file, 'utf8');
  const updated = withPart(text, name, content);
  if (updated === text) return undefined;
  if (check) return `${file}: '${name}' differs from its source; run npm run docs`;
  writeFileSync(file, updated);
  return undefined;
}
