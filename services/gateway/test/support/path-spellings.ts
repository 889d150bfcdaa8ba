import fc from 'fast-check';
import { routeTable } from '../../src/route-table.js';

/**
 * Generators of request paths for the path-spelling properties: how clients, and attackers, may spell a
 * path. Everything stays within what undici's Client will send (printable ASCII, starting with `/`).
 */

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

/** What docs/api.md §1 lets a decoded segment be; the double-encoding rule is the gateway's (request-path.ts). */
export const allowedSegment = (segment: string) =>
  segment !== '.' && segment !== '..' && !/[/\\\p{Cc}]|%[\da-f]{2}/iu.test(segment);

export const patterns = routeTable.map(([pattern]) => pattern);

/** The segments of `pattern` with `:id` as `value` and `*` as `words`. */
export const fill = (pattern: string, value: string, words: string[]) =>
  pattern
    .slice(1)
    .split('/')
    .flatMap((part) => (part === ':id' ? [value] : part === '*' ? words : [part]));

/** `char` as UTF-8 escapes, hex in the given case. */
const escaped = (char: string, upper: boolean) =>
  [...Buffer.from(char)]
    .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
    .map((hex) => (upper ? hex.toUpperCase() : hex))
    .join('');

/** Characters RFC 3986 allows bare in a path segment. */
const BARE = /^[\w\-.~!$&'()*+,;=:@]$/;

/** One character as a client might spell it: mostly bare when it may be, else escaped in either case. */
const spellChar = (char: string) =>
  fc.oneof(...(BARE.test(char) ? [{ weight: 4, arbitrary: fc.constant(char) }] : []), {
    weight: 1,
    arbitrary: fc.constantFrom(escaped(char, false), escaped(char, true)),
  });

/** A segment as a client might spell it: every spelling decodes to `segment`. */
export const spellSegment = (segment: string) =>
  fc.tuple(...[...segment].map(spellChar)).map((chars) => chars.join(''));

/** Hostile spellings of one (ASCII) character: double-encoded, and for `.` overlong UTF-8 too. */
const hostileChar = (char: string) =>
  fc.constantFrom(
    `%25${escaped(char, false).slice(1)}`,
    `%25${escaped(char, true).slice(1)}`,
    ...(char === '.' ? ['%c0%ae', '%e0%80%ae'] : []),
  );

/** A segment with a hostile character here and there. */
const spellHostile = (segment: string) =>
  fc
    .tuple(
      ...[...segment].map((char) =>
        fc.oneof({ weight: 6, arbitrary: spellChar(char) }, { weight: 1, arbitrary: hostileChar(char) }),
      ),
    )
    .map((chars) => chars.join(''));

const DOT_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2E.',
  '%2e',
  '%252e%252e',
  '%c0%ae%c0%ae',
  '..;',
  '.;',
  '...',
  '%2e%2e%00',
  '..%00',
];
const SEPARATORS = [
  '\\',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '%252f',
  '%255C',
  '%c0%af',
  '%c1%9c',
  '//',
  '/./',
  '/%2e/',
  ';/',
  '/;x=1/',
];
const LEADS = ['//', '/\\', '/%2e/', '/%5c', '/%2F'];
const NOISE = [
  ...['%00', '%0a', '%0D%0A', '%7F', '%c2%85'],
  ...[';', ';jsessionid=1', '#', '%23', '%3F', '?', '"', '{', '|', '^', '`', '@', ':'],
  ...['%', '%25', '%zz', '%2'],
  ...['%C3%A9', '%F0%9F%98%80', '%EF%BC%8F', '%EF%BC%8E', '%E2%80%AE'],
];
const QUERIES = ['', '?usernames=alice', '?x=/internal/../users', '?a=%2e%2e%2F&b=\\', '?'];

/** Where an attacker wants to land. */
const INTERNAL = [
  ['internal', 'users'],
  ['internal', 'users', 'by-name', 'alice'],
  ['internal', 'content', 'recipes', id],
  ['internal', 'recipes', id],
  ['Internal', 'users'],
];

/** A route of the table, filled in: `:id` with something id-like, `*` with one to three words. */
const publicRoute = fc
  .tuple(
    fc.constantFrom(...patterns),
    fc.constantFrom(id, 'alice', 'Alice_1', 'a.b', 'internal', 'me', '..a'),
    fc.array(fc.constantFrom('login', 'register', 'internal', 'users'), { minLength: 1, maxLength: 3 }),
  )
  .map(([pattern, value, words]) => fill(pattern, value, words));

/** A public route spelled with hostile characters here and there, many of which still name it. */
const respelledRoute = publicRoute.chain((segments) =>
  fc.tuple(
    ...segments.map((segment) =>
      fc.oneof({ weight: 6, arbitrary: spellSegment(segment) }, { weight: 1, arbitrary: spellHostile(segment) }),
    ),
  ),
);

/** From a public route, up with dot segments, and on to an internal route (or another public one). */
const traversal = fc
  .tuple(
    publicRoute,
    fc.array(fc.constantFrom(...DOT_SEGMENTS), { minLength: 1, maxLength: 5 }),
    fc.oneof(fc.constantFrom(...INTERNAL), publicRoute),
  )
  .chain(([start, ups, end]) =>
    fc.tuple(
      ...start.map(spellSegment),
      ...ups.map((up) => fc.constant(up)),
      ...end.map((segment) => fc.oneof(spellSegment(segment), spellHostile(segment))),
    ),
  );

/** Segments joined with the separators in turn, after the lead. */
const joined = (parts: string[], separators: string[], lead: string) =>
  lead + parts.map((part, index) => (index === 0 ? part : separators[index % separators.length] + part)).join('');

/**
 * A request target built around the route table and the internal routes: mixed and double encoding,
 * backslashes, dot segments, overlong UTF-8, NUL and other controls, `;` parameters, `//`, unicode.
 */
export const hostileTarget = fc
  .record({
    parts: fc.oneof(respelledRoute, traversal),
    separators: fc.array(
      fc.oneof({ weight: 12, arbitrary: fc.constant('/') }, { weight: 1, arbitrary: fc.constantFrom(...SEPARATORS) }),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
    lead: fc.oneof({ weight: 8, arbitrary: fc.constant('/') }, { weight: 1, arbitrary: fc.constantFrom(...LEADS) }),
    noise: fc.option(fc.tuple(fc.constantFrom(...NOISE), fc.nat()), { freq: 2 }),
    query: fc.constantFrom(...QUERIES),
  })
  .map(({ parts, separators, lead, noise, query }) => {
    let path = joined(parts, separators, lead);
    if (noise) {
      const [text, at] = noise;
      const index = 1 + (at % path.length);
      path = path.slice(0, index) + text + path.slice(index);
    }
    return path + query;
  });

/**
 * Any value the contract allows in a segment, awkward characters on purpose. Not `..a` or `a..`: reply-from
 * refuses those itself (see proxy.ts); nor `me`, which is a route of its own.
 */
const AWKWARD = [...'.;%?#&=+@:,$!*\'()~-_ "<>[]{}|^`', 'é', '．', '／', '\u202e', '\u00a0'];
export const segmentValue = fc
  .string({
    unit: fc.oneof(fc.constantFrom(...AWKWARD), fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 1 })),
    minLength: 1,
    maxLength: 6,
  })
  .filter((value) => allowedSegment(value) && !value.startsWith('..') && !value.endsWith('..') && value !== 'me');
