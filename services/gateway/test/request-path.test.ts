import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRequestPath, readSegmentBySegment } from '../src/request-path.js';
import { serviceFor } from '../src/route-table.js';

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

describe('readRequestPath', () => {
  it('splits a plain path into its segments and keeps it as it is', () => {
    expect(readRequestPath(`/api/recipes/${id}/comments`)).toEqual({
      segments: ['api', 'recipes', id, 'comments'],
      path: `/api/recipes/${id}/comments`,
      query: '',
    });
  });

  it('passes the query string on untouched, whatever it holds', () => {
    expect(readRequestPath('/api/recipes?page=2&q=/internal/..%2F\\x')).toMatchObject({
      path: '/api/recipes',
      query: 'page=2&q=/internal/..%2F\\x',
    });
    expect(readRequestPath('/api/recipes?')).toMatchObject({ path: '/api/recipes', query: '' });
  });

  it.each([
    ['/api/users/%41lice_1', ['api', 'users', 'Alice_1'], '/api/users/Alice_1'],
    ['/api/users/%6De', ['api', 'users', 'me'], '/api/users/me'],
    ['/api/users/a.b', ['api', 'users', 'a.b'], '/api/users/a.b'],
    // A `;` is a character of its segment, never a matrix parameter: encoded so no router can split on it.
    ['/api/users/a;b=c', ['api', 'users', 'a;b=c'], '/api/users/a%3Bb%3Dc'],
    ['/api/users/a%3Fb%23c', ['api', 'users', 'a?b#c'], '/api/users/a%3Fb%23c'],
    ['/api/users/100%25', ['api', 'users', '100%'], '/api/users/100%25'],
    ['/api/users/caf%c3%a9', ['api', 'users', 'café'], '/api/users/caf%C3%A9'],
    ['/api/users/%EF%BC%8E%EF%BC%8E', ['api', 'users', '．．'], '/api/users/%EF%BC%8E%EF%BC%8E'],
    ["/api/users/(a)!*'~@:,$+", ['api', 'users', "(a)!*'~@:,$+"], "/api/users/(a)!*'~%40%3A%2C%24%2B"],
  ])('reads %s as decoded segments, forwarded re-encoded', (raw, segments, path) => {
    expect(readRequestPath(raw)).toEqual({ segments, path, query: '' });
  });

  it('keeps empty segments, so that `//` matches no route', () => {
    const read = readRequestPath('/api//recipes');
    expect(read?.segments).toEqual(['api', '', 'recipes']);
    expect(serviceFor(read!.path)).toBeUndefined();
  });

  it.each([
    // The reported attacks: backslashes the HTTP client would turn into slashes, then resolve.
    '/api/users/x\\..\\..\\..\\internal\\users',
    `/api/users/x\\..\\..\\..\\internal\\content\\recipes\\${id}`,
    '/api/users/a\\b',
    // Encoded slashes and backslashes, any case.
    '/api/users/..%2f..%2finternal%2fusers',
    '/api/users/a%2Fb',
    '/api/users/a%5cb',
    '/api/users/a%5Cb',
    // Dot segments, raw or encoded, any case.
    '/api/users/..',
    '/api/users/.',
    '/api/users/../../internal/users',
    '/api/users/%2e%2e',
    '/api/users/%2E%2e',
    '/api/recipes/.%2E/comments',
    '/api/recipes/%2e/comments',
    '/api/auth/%2e%2e/%2e%2e/internal/x',
    // Control characters, encoded (raw ones never get past Node's HTTP parser).
    '/api/users/a%00',
    '/api/users/%0d%0aX-Injected:%20yes',
    '/api/users/a%7f',
    '/api/users/a%c2%85',
    // Escapes that are not UTF-8, including overlong spellings of `.` and `/`.
    '/api/users/%c0%ae%c0%ae',
    '/api/users/..%c0%af..%c0%afinternal',
    '/api/users/%e0%80%ae',
    '/api/users/%ed%a0%80',
    '/api/users/%ff',
    // Broken escapes.
    '/api/users/%',
    '/api/users/%zz',
    '/api/users/%2',
    '/api/users/%u002e',
    // Double encoding.
    '/api/users/%252e%252e',
    '/api/users/%252E',
    '/api/users/a%255cb',
    '/api/users/a%252Fb',
    '/api/users/%2500',
    // Characters RFC 3986 does not allow in a path, which parsers read each their own way.
    '/api/users/a#/../../internal/users',
    '/api/users/a"b',
    '/api/users/a b',
    '/api/users/a{b}',
    '/api/users/a|b',
    '/api/users/caf\u00e9',
    // Not an origin-form path at all.
    'api/users/alice',
    '*',
    'http://internal/users',
    '',
  ])('refuses %j', (raw) => {
    expect(readRequestPath(raw)).toBeUndefined();
    expect(readRequestPath(`${raw}?usernames=alice`)).toBeUndefined();
  });
});

describe('the plain spelling read at once', () => {
  // Pieces of paths: the plain characters, every kind of escape, dot segments and what RFC 3986 refuses.
  const piece = fc.constantFrom(
    ...['/', '/', 'a', 'Z', '0', '-', '_', '.', '..', '~', '!', "'", '(', ')', '*', 'api', 'users', id],
    ...['%', '%2e', '%2E', '%2f', '%5c', '%41', '%00', '%c3%a9', '%zz', '%25', ';', '=', ':', '@', '$', '&', '+', ','],
    ...['\\', ' ', '#', '"', '{', 'é', '?', '%ed%a0%80'],
  );
  const rawUrl = fc.array(piece, { maxLength: 12 }).map((pieces) => `/${pieces.join('')}`);

  it('reads every path as decoding, checking and re-encoding each segment would', () => {
    fc.assert(
      fc.property(rawUrl, (url) => {
        const mark = url.indexOf('?');
        const [rawPath, query] = mark === -1 ? [url, ''] : [url.slice(0, mark), url.slice(mark + 1)];
        const full = readSegmentBySegment(rawPath);
        expect(readRequestPath(url)).toEqual(full && { ...full, query });
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('routing on the read path', () => {
  it('decides on the decoded path, so an encoded spelling reaches the same route', () => {
    expect(serviceFor(readRequestPath('/api/users/%6D%65')!.path)).toBe('users');
    expect(serviceFor(readRequestPath(`/api/users/${id}/%72ecipes`)!.path)).toBe('content');
    expect(serviceFor(readRequestPath('/%69nternal/users')!.path)).toBeUndefined();
  });
});
