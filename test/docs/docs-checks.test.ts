import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configTable } from '../../scripts/docs/config-reference.mjs';
import { updatePart, withPart } from '../../scripts/docs/generated-part.mjs';
import { referencesIn, staleReferences } from '../../scripts/docs/section-references.mjs';
import { triggerRows, triggerTable } from '../../scripts/docs/trigger-table.mjs';

/**
 * The checks `npm run lint` runs on the documents (scripts/docs.mjs check): every section reference names
 * a section that exists, and each generated part (the settings, the routes, events and triggers) is what
 * its source makes. Each is shown failing on a small tree made here.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const trees: string[] = [];
/** The section sign, spelled so that this file's own fixtures are not references the check would read. */
const S = '\u00a7';
afterAll(() => trees.forEach((tree) => rmSync(tree, { recursive: true, force: true })));

/** A git tree of `files` (path → text), as the check lists files through git. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-check-'));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

const api = '# API\n\n## 1. Conventions\n\n## 2. Authentication\n\n### 2.1 Tokens\n';

describe('section references', () => {
  it('passes references to sections that exist, in code and in documents', () => {
    const dir = tree({
      'docs/api.md': `${api}\nAs in ${S}1 and ${S}2.1.\n`,
      'src/a.ts': `/** Limits as in docs/api.md ${S}2, tokens in docs/api.md ${S}2.1; see also docs/api.md ${S}1 and ${S}2. */\n`,
      'src/b.ts': `// Hop-by-hop headers (RFC 9110 ${S}7.6.1) are not ours.\n`,
    });
    expect(staleReferences(dir)).toEqual([]);
  });

  it('fails on a section that does not exist, on a document that does not, and on a bare number in code', () => {
    const dir = tree({
      'docs/api.md': `${api}\nAs in ${S}3.\n`,
      'src/a.ts': `/** See docs/api.md ${S}9.1, and docs/api.md ${S}1 and ${S}4. */\n`,
      'src/b.ts': `/** See docs/guide.md ${S}1. */\n`,
      'src/c.ts': `/** See ${S}2. */\n`,
    });
    expect(staleReferences(dir)).toEqual([
      `docs/api.md:9: docs/api.md has no ${S}3`,
      `src/a.ts:1: docs/api.md has no ${S}9.1`,
      `src/a.ts:1: docs/api.md has no ${S}4`,
      `src/b.ts:1: ${S}1 names docs/guide.md, which does not exist`,
      `src/c.ts:1: ${S}2 names no document (write "docs/<file>.md ${S}n")`,
    ]);
  });

  it('reads the documents as they are when it runs: a section added since counts', () => {
    const dir = tree({ 'docs/api.md': api, 'src/a.ts': `/** docs/api.md ${S}10 */\n` });
    expect(staleReferences(dir)).toHaveLength(1);
    writeFileSync(join(dir, 'docs/api.md'), `${api}\n## 10. Relations\n`);
    expect(staleReferences(dir)).toEqual([]);
  });

  it('reads a list after a document as references to it, and another specification as none of ours', () => {
    expect(referencesIn(`docs/api.md ${S}4, ${S}5 or ${S}6.1; RFC 9113 ${S}8.2.2`)).toEqual([
      { line: 1, document: 'docs/api.md', section: '4' },
      { line: 1, document: 'docs/api.md', section: '5' },
      { line: 1, document: 'docs/api.md', section: '6.1' },
    ]);
  });
});

describe('generated parts', () => {
  const begin = (name: string) =>
    `<!-- BEGIN ${name}: written by \`npm run docs\`, checked by \`npm run lint\`; edit the source, not this -->`;

  it('rewrites only the lines between its markers, and reports a part that differs when checking', () => {
    const dir = tree({ 'doc.md': `# Doc\n\nmine\n${begin('table')}\nold\n<!-- END table -->\n\nmine too\n` });
    const file = join(dir, 'doc.md');
    expect(updatePart(file, 'table', 'new', { check: true })).toBe(
      `${file}: 'table' differs from its source; run npm run docs`,
    );
    expect(updatePart(file, 'table', 'new', { check: false })).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(`# Doc\n\nmine\n${begin('table')}\nnew\n<!-- END table -->\n\nmine too\n`);
    expect(updatePart(file, 'table', 'new', { check: true })).toBeUndefined();
    expect(() => withPart('# no markers', 'table', 'new')).toThrow("no part 'table'");
  });

  it('makes the settings table from the schemas: default, users and .describe(), and refuses a setting without one', () => {
    const schemas = {
      users: z.object({
        PORT: z.coerce.number().default(3001).describe('port of the public API'),
        ONLY: z.string().optional().describe('users only'),
      }),
      gateway: z.object({ PORT: z.coerce.number().default(3000).describe('port of the public API') }),
    };
    expect(configTable(schemas).split('\n').slice(2)).toEqual([
      '| `PORT` | `3001` (users); `3000` (gateway) | users, gateway | port of the public API |',
      '| `ONLY` | none | users | users only |',
    ]);
    expect(() => configTable({ users: z.object({ SECRET: z.string() }) })).toThrow(
      'SECRET in services/users/src/config.ts has no .describe()',
    );
  });

  it("differs from docs/configuration.md's table once a default in the document is changed by hand", async () => {
    const { configSchemas } = await import('../../scripts/docs/config-reference.mjs');
    const table = configTable(await configSchemas());
    const document = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    expect(withPart(document, 'settings', table)).toBe(document);
    const dir = tree({ 'configuration.md': document.replace('| `LOG_LEVEL` | `info` |', '| `LOG_LEVEL` | `debug` |') });
    expect(updatePart(join(dir, 'configuration.md'), 'settings', table, { check: true })).toMatch(/'settings' differs/);
  });

  it('finds every trigger of the migrations with its writes, its event and why it is a trigger', () => {
    const rows = triggerRows(root);
    const mention = rows.find((row) => row.name === 'announce_mention_removal')!;
    expect(mention).toMatchObject({ owner: 'comments', writes: ['outbox'], events: ['comment.mention.deleted'] });
    expect(rows.map((row) => row.name)).not.toContain('announce_mention');
    expect(mention.tables).toEqual(['recipe_comment_mentions', 'collection_comment_mentions', 'post_comment_mentions']);
    expect(rows.filter((row) => row.why === undefined).map((row) => row.name)).toEqual([]);
    expect(triggerTable(rows)).not.toContain('no reason given');
  });
});
