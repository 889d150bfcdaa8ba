// Every file and function the documents name in backquotes exists. The documents are README.md,
// bench/README.md, docs/*.md and docs/decisions/*.md; fenced code blocks are left out. Three kinds of
// name are checked:
//
//   a file path       `services/comments/src/posting.ts`: a path with an extension whose first folder is
//                     one at the top of the repository must name a file that exists. A path relative to a
//                     service (`src/…`, `migrations/…`) or with a pattern in it (`<name>`, `*`, `{…}`, `…`)
//                     is not checked.
//   a function        `store_notifications()`: a name with empty parentheses must be defined somewhere in
//                     the sources (every .ts, .mjs, .js and .sql file but dist/ and generated/): `function
//                     name`, `const name =` (`let`, `var`), a method `name(…) {` or `name(…): type`, a
//                     property or field `name: (…) =>` or `name = async (…) =>`, or SQL's `CREATE FUNCTION
//                     name` (and PROCEDURE). A name after a dot (`.describe()`, `subscription.unsubscribe()`)
//                     is a library's or the platform's method and is not checked.
//   a name in a file  `libs/outbox/src/batch.ts` `relayBatch`: a name (or `Class.method`, with or without
//                     `()`) that follows a file path, with nothing but spaces between, must appear in that
//                     file.
//
// Files are read as they are when the check runs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { filesOf } from './section-references.mjs';
import { migrationStatements, SETS } from './trigger-table.mjs';

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|sql)$/;
const PATH = /^[\w.@-]+(?:\/[\w.@-]+)*\/[\w.@-]*\w\.[a-z]{1,5}$/;
const IDENTIFIER = String.raw`[A-Za-z_$][\w$]*`;
const FUNCTION = new RegExp(String.raw`^(${IDENTIFIER})\(\)$`);
const SQL_FUNCTION = /^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+(?:\w+\.)?"?(\w+)/i;
const NAME = new RegExp(String.raw`^(${IDENTIFIER}(?:\.${IDENTIFIER})*)(?:\(\))?$`);

/** The documents the check reads, relative to `root`. */
export function documentsOf(root) {
  const inFolder = (folder) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder))
          .filter((name) => name.endsWith('.md'))
          .sort()
          .map((name) => `${folder}/${name}`)
      : [];
  return ['README.md', 'bench/README.md', ...inFolder('docs'), ...inFolder('docs/decisions')].filter((file) =>
    existsSync(join(root, file)),
  );
}

/** The code spans of a markdown text outside fenced blocks: { text (white space made single), line, end }. */
export function codeSpansOf(markdown) {
  // Fenced blocks become blank lines of the same count, so that line numbers hold.
  const text = markdown.replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
  const spans = [];
  for (const match of text.matchAll(/`([^`]+)`/g)) {
    spans.push({
      text: match[1].replace(/\s+/g, ' ').trim(),
      line: text.slice(0, match.index).split('\n').length,
      start: match.index,
      end: match.index + match[0].length,
    });
  }
  return spans;
}

/** Whether a code span is a repository path the check can resolve: an extension, a top folder, no pattern. */
function isCheckedPath(root, span) {
  if (!PATH.test(span) || span.startsWith('.') || span.includes('..')) return false;
  const top = span.split('/')[0];
  return existsSync(join(root, top)) && !['src', 'migrations', 'dist'].includes(top);
}

/** Every name the sources define as a function, method, property, constant or SQL function. */
export function definedNames(root, files = filesOf(root)) {
  const names = new Set();
  const migrationDirs = new Set(SETS.map(({ dir }) => dir));
  const add = (pattern, text) => {
    for (const match of text.matchAll(pattern)) names.add(match[1]);
  };
  for (const file of files.filter((name) => SOURCE.test(name) && !/(^|\/)(dist|generated)\//.test(name))) {
    const text = readFileSync(join(root, file), 'utf8');
    add(new RegExp(String.raw`\bfunction\s*\*?\s*(${IDENTIFIER})`, 'g'), text);
    add(new RegExp(String.raw`\b(?:const|let|var)\s+(${IDENTIFIER})\s*[=:]`, 'g'), text);
    add(
      new RegExp(
        String.raw`^\s*(?:(?:export|public|private|protected|static|async|get|set|override|readonly|abstract|declare)\s+)*\*?#?(${IDENTIFIER})\s*(?:<[^>\n]*>)?\s*\([^;]*?\)\s*(?:(?::[^;{=]*)?\{|:[^;{=]*;)`,
        'gm',
      ),
      text,
    );
    add(
      new RegExp(
        String.raw`\b(${IDENTIFIER})\s*[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=;]+)?=>|${IDENTIFIER}\s*=>)`,
        'g',
      ),
      text,
    );
    if (!migrationDirs.has(dirname(file))) add(new RegExp(SQL_FUNCTION.source.replace('^\\s*', '\\b'), 'gi'), text);
  }
  for (const name of migratedFunctions(root)) names.add(name);
  return names;
}

/** The SQL functions left after every set's migrations ran (their Up parts, in order): created, not dropped. */
export function migratedFunctions(root) {
  const functions = new Set();
  for (const { statement } of migrationStatements(root)) {
    const created = SQL_FUNCTION.exec(statement);
    if (created) functions.add(created[1]);
    const dropped = /^DROP\s+(?:FUNCTION|PROCEDURE)\s+(?:IF\s+EXISTS\s+)?(?:\w+\.)?"?(\w+)/i.exec(statement);
    if (dropped) functions.delete(dropped[1]);
  }
  return functions;
}

/** One line per backquoted path that names no file, function defined nowhere, or name its file lacks. */
export function unknownNames(root, { documents = documentsOf(root), files = filesOf(root) } = {}) {
  let defined;
  const problems = [];
  for (const document of documents) {
    const markdown = readFileSync(join(root, document), 'utf8');
    const spans = codeSpansOf(markdown);
    spans.forEach((span, index) => {
      const where = `${document}:${span.line}`;
      if (isCheckedPath(root, span.text)) {
        if (!existsSync(join(root, span.text)))
          problems.push(`${where}: \`${span.text}\` names no file in the repository`);
        return;
      }
      const before = spans[index - 1];
      const name = NAME.exec(span.text)?.[1];
      if (
        name !== undefined &&
        before !== undefined &&
        /^[ \t]*$/.test(markdown.slice(before.end, span.start)) &&
        isCheckedPath(root, before.text) &&
        existsSync(join(root, before.text))
      ) {
        const source = readFileSync(join(root, before.text), 'utf8');
        const missing = name
          .split('.')
          .filter((part) => !new RegExp(String.raw`(?<![\w$])${part.replace(/\$/g, '\\$')}(?![\w$])`).test(source));
        if (missing.length > 0) problems.push(`${where}: \`${before.text}\` has no \`${missing.join('`, `')}\``);
        return;
      }
      const called = FUNCTION.exec(span.text)?.[1];
      if (called === undefined) return;
      defined ??= definedNames(root, files);
      if (!defined.has(called)) problems.push(`${where}: \`${span.text}\` is defined nowhere in the sources`);
    });
  }
  return problems;
}
