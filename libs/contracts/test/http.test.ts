import { describe, expect, it } from 'vitest';
import { httpUrlSchema, pageOffset, pageQuery, pagination, usernameSchema } from '../src/index.js';

describe('pageQuery', () => {
  const query = pageQuery(12);

  it('defaults page to 1 and limit to the endpoint default', () => {
    expect(query.parse({})).toEqual({ page: 1, limit: 12 });
  });

  it('clamps limit at 100', () => {
    expect(query.parse({ page: '3', limit: '1000' })).toEqual({ page: 3, limit: 100 });
  });

  it.each(['0', '-1', '1.5', 'abc', '', ' 2', '1e3', '99999999999'])('rejects %j', (value) => {
    expect(query.safeParse({ page: value }).success).toBe(false);
    expect(query.safeParse({ limit: value }).success).toBe(false);
  });
});

describe('pagination', () => {
  it('computes totalPages and offsets', () => {
    expect(pagination({ page: 2, limit: 12 }, 25)).toEqual({ page: 2, limit: 12, total: 25, totalPages: 3 });
    expect(pagination({ page: 1, limit: 12 }, 0)).toEqual({ page: 1, limit: 12, total: 0, totalPages: 0 });
    expect(pageOffset({ page: 3, limit: 12 })).toBe(24);
  });
});

describe('usernameSchema', () => {
  it.each(['abc', 'A_b_9', 'x'.repeat(30)])('accepts %s', (name) =>
    expect(usernameSchema.safeParse(name).success).toBe(true),
  );
  it.each(['ab', 'x'.repeat(31), 'bad-name', 'ünï', 'a b', ''])('rejects %j', (name) =>
    expect(usernameSchema.safeParse(name).success).toBe(false),
  );
});

describe('httpUrlSchema', () => {
  it.each(['https://cdn.example.com/a.jpg', 'http://localhost:8080/x'])('accepts %s', (url) =>
    expect(httpUrlSchema.safeParse(url).success).toBe(true),
  );
  it.each([
    'javascript:alert(1)',
    'ftp://x/y',
    'not a url',
    `https://x.com/${'a'.repeat(2048)}`,
    'file:///etc/passwd',
    'https://x.com/a\u0000b',
    'https://x.com/a b',
    ' https://x.com/a',
    'https://x.com/a\n',
  ])('rejects %s', (url) => expect(httpUrlSchema.safeParse(url).success).toBe(false));
});
