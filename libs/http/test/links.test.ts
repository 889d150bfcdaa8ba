import { describe, expect, it } from 'vitest';
import { listLinks, withPlace } from '../src/index.js';

const pages = { limit: 10, total: 45, totalPages: 5 };

describe('listLinks', () => {
  it('gives a page request next by cursor, first, prev and last, keeping the other parameters as written', () => {
    const links = listLinks('/api/notifications?types=tag_recipe,tag_post&page=3&limit=10&unread=true', {
      ...pages,
      page: 3,
      nextCursor: 'abc',
    });
    expect(links).toBe(
      [
        '</api/notifications?types=tag_recipe,tag_post&limit=10&unread=true&cursor=abc>; rel="next"',
        '</api/notifications?types=tag_recipe,tag_post&limit=10&unread=true&page=1>; rel="first"',
        '</api/notifications?types=tag_recipe,tag_post&limit=10&unread=true&page=2>; rel="prev"',
        '</api/notifications?types=tag_recipe,tag_post&limit=10&unread=true&page=5>; rel="last"',
      ].join(', '),
    );
  });

  it('gives a cursor request only next, and nothing on its last page', () => {
    expect(listLinks('/api/x?cursor=old&limit=10', { ...pages, page: null, nextCursor: 'new' })).toBe(
      '</api/x?limit=10&cursor=new>; rel="next"',
    );
    expect(listLinks('/api/x?cursor=old', { ...pages, page: null, nextCursor: null })).toBeUndefined();
  });

  it('has no prev on the first page, and a last of 1 for an empty list; a page past the end has prev at the last', () => {
    expect(listLinks('/api/x', { limit: 10, total: 0, totalPages: 0, page: 1, nextCursor: null })).toBe(
      '</api/x?page=1>; rel="first", </api/x?page=1>; rel="last"',
    );
    expect(listLinks('/api/x?page=9', { ...pages, page: 9, nextCursor: null })).toBe(
      '</api/x?page=1>; rel="first", </api/x?page=5>; rel="prev", </api/x?page=5>; rel="last"',
    );
  });

  it('drops page and cursor however they are spelt, and keeps a parameter it cannot decode', () => {
    expect(withPlace('/api/x?%70age=2&cursor=a&cursor=b&bad=%E0%A4%A&%zz=1', { page: 4 })).toBe(
      '/api/x?bad=%E0%A4%A&%zz=1&page=4',
    );
  });
});
