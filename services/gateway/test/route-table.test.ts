import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathOf } from '@recipes/http';
import { routeFor, routeTable, serviceFor } from '../src/route-table.js';

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

/** Every public path of docs/api.md with the service that owns it. */
const owners: Array<[string, string]> = [
  ['/api/auth/register', 'users'],
  ['/api/auth/login', 'users'],
  ['/api/users/me', 'users'],
  [`/api/users/${id}`, 'users'],
  ['/api/users/Alice_1', 'users'],
  [`/api/users/${id}/recipes`, 'content'],
  ['/api/users/alice/recipes', 'content'],
  ['/api/recipes', 'content'],
  [`/api/recipes/${id}`, 'content'],
  [`/api/recipes/${id}/favorite`, 'content'],
  [`/api/recipes/${id}/repost`, 'content'],
  ['/api/posts', 'content'],
  [`/api/posts/${id}`, 'content'],
  [`/api/recipes/${id}/comments`, 'comments'],
  [`/api/collections/${id}/comments`, 'comments'],
  [`/api/posts/${id}/comments`, 'comments'],
  [`/api/comments/${id}`, 'comments'],
  [`/api/comments/${id}/replies`, 'comments'],
  [`/api/users/${id}/saved-items`, 'collections'],
  [`/api/users/${id}/collections`, 'collections'],
  ['/api/saved-items', 'collections'],
  [`/api/saved-items/${id}`, 'collections'],
  ['/api/collections', 'collections'],
  [`/api/collections/${id}`, 'collections'],
  [`/api/collections/${id}/items`, 'collections'],
  ['/api/notifications', 'notifications'],
  ['/api/notifications/unread-count', 'notifications'],
  ['/api/notifications/read', 'notifications'],
];

describe('serviceFor', () => {
  it.each(owners)('routes %s to %s', (path, service) => {
    expect(serviceFor(path)).toBe(service);
  });

  it.each([
    '/internal/x',
    '/internal/users/by-name/alice',
    '/api/internal/users',
    '/api',
    '/api/',
    '/api/unknown',
    '/api/auth',
    '/api/users',
    '/api/users/',
    `/api/users/${id}/unknown`,
    `/api/users/${id}/recipes/extra`,
    `/api/recipes/${id}/`,
    `/api/recipes/${id}/likes`,
    '/api/recipes//comments',
    '/api/comments',
    `/api/comments/${id}/likes`,
    `/api/notifications/${id}`,
    '/api/notifications/read/all',
    '/health',
    '/docs',
    '/',
  ])('routes nothing for %s', (path) => {
    expect(serviceFor(path)).toBeUndefined();
  });

  it('takes a dot inside a segment as a character (dot segments never get here: see request-path.test.ts)', () => {
    expect(serviceFor('/api/users/a.b')).toBe('users');
    expect(serviceFor('/api/recipes/a.b/comments')).toBe('comments');
  });

  it('gives every table entry a reachable pattern (none shadowed by an earlier one)', () => {
    for (const [pattern, service] of routeTable) {
      const example = pattern.replaceAll(':id', id).replace('*', 'x/y');
      expect(serviceFor(example), pattern).toBe(service);
    }
  });
});

describe('routeFor, over any path', () => {
  // The table's meaning as regular expressions: `:name` is one segment, `*` one or more; first match wins.
  const asRegExp = (pattern: string) =>
    new RegExp(
      `^${pattern
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '[^/]+(?:/[^/]+)*' : part))
        .join('/')}$`,
    );
  const model = routeTable.map(([pattern, service]) => [asRegExp(pattern), pattern, service] as const);
  const modelRoute = (path: string) => {
    const entry = model.find(([regex]) => regex.test(path));
    return entry && { pattern: entry[1], service: entry[2] };
  };
  // Paths made of the table's own words, ids, empty segments and words of no route, with or without `/`s.
  const word = fc.constantFrom(
    ...new Set(routeTable.flatMap(([pattern]) => pattern.split('/')).filter((part) => /^[\w-]+$/.test(part))),
    id,
    'x',
    '',
    'a.b',
  );
  // And a table's pattern spelled out, then one or two of its segments changed or added, so paths come close.
  const nearPattern = fc
    .tuple(
      fc.constantFrom(...routeTable.map(([pattern]) => pattern)),
      fc.array(fc.tuple(fc.nat(8), word), { maxLength: 2 }),
    )
    .map(([pattern, edits]) => {
      const segments = pattern.split('/').map((part) => (part.startsWith(':') ? id : part === '*' ? 'x/y' : part));
      for (const [at, replacement] of edits) segments[at % (segments.length + 1)] = replacement;
      return segments.join('/');
    });
  const path = fc.oneof(
    nearPattern,
    fc.array(word, { maxLength: 7 }).map((words) => `/${words.join('/')}`),
    fc.array(word, { maxLength: 7 }).map((words) => words.join('/')),
  );

  it('routes every path as the patterns read as regular expressions would', () => {
    fc.assert(
      fc.property(path, (candidate) => {
        expect(routeFor(candidate)).toEqual(modelRoute(candidate));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('pathOf', () => {
  it('drops the query string', () => {
    expect(pathOf('/api/recipes?page=2&limit=5')).toBe('/api/recipes');
    expect(pathOf('/api/recipes')).toBe('/api/recipes');
    expect(pathOf('/api/recipes?')).toBe('/api/recipes');
  });

  it('lets the query string play no part in routing', () => {
    expect(serviceFor(pathOf('/api/notifications?x=/internal/y'))).toBe('notifications');
    expect(serviceFor(pathOf('/internal/x?/api/recipes'))).toBeUndefined();
  });
});
