/**
 * JSON Schema forms of rules that zod checks by refinement (docs/api.md §1), for the OpenAPI document: the
 * nearest `pattern`, so that a client generated from it refuses what the API refuses. Patterns are
 * ECMA-262 with the `u` flag, as JSON Schema 2020-12 reads them, so they count characters (code points).
 */

/**
 * Text that is trimmed, then `min` (0 or 1) to `max` characters, none of them in the class `forbidden`
 * (a character class body, e.g. `\u0000-\u001f`): white space around it is allowed, since it is trimmed away.
 */
export function trimmedTextPattern({ min, max, forbidden }: { min: 0 | 1; max: number; forbidden: string }): string {
  const allowed = `[^${forbidden}]`;
  const visible = `[^\\s${forbidden}]`;
  const text = max === 1 ? visible : `${visible}(?:${allowed}{0,${max - 2}}${visible})?`;
  return min === 0 ? `^\\s*(?:${text})?\\s*$` : `^\\s*${text}\\s*$`;
}

/**
 * Control characters, as classes for `trimmedTextPattern`: C0 and C1 with DEL (`\p{Cc}`), and C0 but tab, line feed and
 * return.
 */
export const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
export const C0_BUT_LINE_BREAKS = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f';
