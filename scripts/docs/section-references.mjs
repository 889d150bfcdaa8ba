// Every section reference in the repository's code and documents names a section that exists: a document
// and a section sign with a number ("docs/api.md §7", "architecture.md §10", "docs/api.md §4 and §5", the
// numbers listed after the first with commas, "and" or "or"), and in a markdown file a number with the
// sign alone (a section of that file). A section is a numbered heading ("## 7. Notifications",
// "### 10.1 Cursors"). Other specifications' sections ("RFC 9110 §8.3") are not ours to check. Files are
// read as they are when the check runs, so a section someone adds counts at once.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const TEXT_FILES = /\.(ts|mts|cts|js|mjs|cjs|md|sql|ya?ml)$/;
const SKIPPED = /^(bench\/results|pacts|generated)\//;

/** The numbers of a markdown document's numbered headings: "7", "10.1" … */
export function sectionsOf(markdown) {
  const sections = new Set();
  for (const [, number] of markdown.matchAll(/^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)) sections.add(number);
  return sections;
}

// A document named before `§` (or a specification we do not check), then the numbers, and those listed
// after it with "," "and" "or".
const REFERENCE =
  /(?:(?<document>[\w./-]*\.md)|(?<other>\b(?:RFC|ISO|ECMA)[\s-]?[\d-]+))?\s*§(?<first>\d+(?:\.\d+)*)(?<more>(?:(?:,\s*|\s+and\s+|\s+or\s+)§\d+(?:\.\d+)*)*)/g;

/** The references in one file's text: { line, document (as written, or undefined for a bare one), section }. */
export function referencesIn(text) {
  const found = [];
  for (const match of text.matchAll(REFERENCE)) {
    if (match.groups.other) continue;
    const line = text.slice(0, match.index).split('\n').length;
    const sections = [
      match.groups.first,
      ...[...match.groups.more.matchAll(/§(\d+(?:\.\d+)*)/g)].map((more) => more[1]),
    ];
    for (const section of sections) found.push({ line, document: match.groups.document, section });
  }
  return found;
}

/** Where a reference in `file` points: a path relative to the file, else to the root, else in docs/. */
function resolveDocument(root, file, document) {
  if (document === undefined) return file.endsWith('.md') ? join(root, file) : undefined;
  const candidates = [resolve(root, dirname(file), document), resolve(root, document), resolve(root, 'docs', document)];
  return candidates.find((candidate) => existsSync(candidate));
}

/** The files to look in: those git tracks or would track (new ones too), as they are now. */
export function filesOf(root) {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((file) => TEXT_FILES.test(file) && !SKIPPED.test(file) && existsSync(join(root, file)));
}

/** One line per reference that names no existing section (or no document we have); none when all hold. */
export function staleReferences(root, files = filesOf(root)) {
  const sectionsByDocument = new Map();
  const problems = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    if (!text.includes('§')) continue;
    for (const { line, document, section } of referencesIn(text)) {
      const target = resolveDocument(root, file, document);
      const where = `${file}:${line}`;
      if (target === undefined) {
        problems.push(
          `${where}: §${section} names ${document ? `${document}, which does not exist` : 'no document (write "docs/<file>.md §n")'}`,
        );
        continue;
      }
      if (!sectionsByDocument.has(target)) sectionsByDocument.set(target, sectionsOf(readFileSync(target, 'utf8')));
      if (!sectionsByDocument.get(target).has(section))
        problems.push(`${where}: ${relative(root, target)} has no §${section}`);
    }
  }
  return problems;
}
