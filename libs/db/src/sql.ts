/**
 * SQL composed by name: a fragment is written as a tagged template, and what it interpolates is either a
 * value, which becomes a parameter, or another fragment, spliced in with its own values. Parameters are
 * numbered once, when the whole statement is rendered (`query`), so no fragment carries a `$n` that
 * depends on where it ends up, and the same composition always renders the same text: it is prepared
 * once per connection like any other statement (prepared.ts).
 */

const FRAGMENT = Symbol('sql fragment');

export interface Sql {
  readonly [FRAGMENT]: true;
  /** Text around the values, one more than the values. */
  readonly strings: readonly string[];
  readonly values: readonly unknown[];
}

const isFragment = (value: unknown): value is Sql => typeof value === 'object' && value !== null && FRAGMENT in value;

/** A fragment: `sql\`recipient_id = ${id}\``. Interpolated fragments are spliced in, anything else is a parameter. */
export function sql(template: TemplateStringsArray | readonly string[], ...interpolated: unknown[]): Sql {
  const strings = [template[0]!];
  const values: unknown[] = [];
  interpolated.forEach((value, index) => {
    const after = template[index + 1]!;
    if (isFragment(value)) {
      strings[strings.length - 1] += value.strings[0]!;
      values.push(...value.values);
      strings.push(...value.strings.slice(1));
      strings[strings.length - 1] += after;
    } else {
      values.push(value);
      strings.push(after);
    }
  });
  return { [FRAGMENT]: true, strings, values };
}

/**
 * Text that is SQL itself, never a value: a table's or a function's name chosen from a fixed list in the
 * code. Never pass it anything a client sent.
 */
export const identifier = (text: string): Sql => {
  if (!/^[a-z_][a-z0-9_]*$/.test(text)) throw new Error(`not an identifier: ${text}`);
  return sql([text]);
};

/** `fragments` one after the other, `separator` between them. */
export function join(fragments: readonly Sql[], separator: Sql = sql`, `): Sql {
  return fragments.reduce(
    (joined, fragment, index) => (index === 0 ? fragment : sql`${joined}${separator}${fragment}`),
    sql``,
  );
}

/** The statement as pg takes it: `$1`, `$2` … in the order the values appear. */
export function query(fragment: Sql): { text: string; values: unknown[] } {
  let text = fragment.strings[0]!;
  fragment.values.forEach((_value, index) => {
    text += `$${index + 1}${fragment.strings[index + 1]!}`;
  });
  return { text, values: [...fragment.values] };
}
