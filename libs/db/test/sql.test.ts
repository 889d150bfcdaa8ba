import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identifier, join, query, type Sql, sql } from '../src/sql.js';

/** A fragment tree built at random, with the text it must render to when each value is written in place. */
type Tree = { kind: 'value'; value: number } | { kind: 'text'; text: string } | { kind: 'fragment'; parts: Tree[] };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer().map((value) => ({ kind: 'value' as const, value })),
    fc.constantFrom('SELECT ', ' AND ', 'x = ', ', ', '(', ')', '').map((text) => ({ kind: 'text' as const, text })),
    fc.array(tie('tree'), { maxLength: 5 }).map((parts) => ({ kind: 'fragment' as const, parts })),
  ),
})).tree;

/** Builds the fragment as code would: texts between interpolations, values and fragments interpolated. */
function build(node: Tree): Sql {
  if (node.kind === 'text') return sql([node.text]);
  if (node.kind === 'value') return sql`${node.value}`;
  const strings = [''];
  const interpolated: unknown[] = [];
  for (const part of node.parts) {
    if (part.kind === 'text') strings[strings.length - 1] += part.text;
    else {
      interpolated.push(part.kind === 'value' ? part.value : build(part));
      strings.push('');
    }
  }
  return sql(strings, ...interpolated);
}

/** The text with every value written in place, as a reader would see the statement. */
const inline = (node: Tree): string =>
  node.kind === 'text' ? node.text : node.kind === 'value' ? `<${node.value}>` : node.parts.map(inline).join('');

describe('sql', () => {
  it('numbers the parameters of any composition in the order its values appear, once', () => {
    fc.assert(
      fc.property(tree, (node) => {
        const { text, values } = query(build(node));
        const rendered = text.replace(/\$(\d+)/g, (_match, n: string) => `<${values[Number(n) - 1] as number}>`);
        expect(rendered).toBe(inline(node));
        const numbers = [...text.matchAll(/\$(\d+)/g)].map(([, n]) => Number(n));
        expect(numbers).toEqual(values.map((_value, index) => index + 1));
      }),
    );
  });

  it('renders the same text for the same composition, whatever the values', () => {
    const statement = (recipient: string, ids: string[]) =>
      query(sql`SELECT id FROM notifications WHERE recipient_id = ${recipient} AND ${sql`id = ANY(${ids})`}`);
    expect(statement('a', ['1']).text).toBe(statement('b', ['2', '3']).text);
    expect(statement('a', ['1']).text).toBe('SELECT id FROM notifications WHERE recipient_id = $1 AND id = ANY($2)');
    expect(statement('b', ['2']).values).toEqual(['b', ['2']]);
  });

  it('joins fragments with a separator', () => {
    const { text, values } = query(sql`VALUES ${join([1, 2, 3].map((n) => sql`(${n})`))}`);
    expect(text).toBe('VALUES ($1), ($2), ($3)');
    expect(values).toEqual([1, 2, 3]);
    expect(query(join([])).text).toBe('');
  });

  it('takes identifiers as text and refuses anything that is not one', () => {
    expect(query(sql`DELETE FROM ${identifier('post_comment_mentions')} WHERE comment_id = ${'c'}`).text).toBe(
      'DELETE FROM post_comment_mentions WHERE comment_id = $1',
    );
    expect(() => identifier('x; DROP TABLE users')).toThrow(/not an identifier/);
  });
});
