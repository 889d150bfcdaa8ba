import { hash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listCursor, listPagination, listQuery } from '../src/index.js';

const notifications = listCursor('notifications');
const position = { at: '2026-11-27T10:00:00.123456Z', id: '0190a000-0000-7000-8000-000000000001' };

describe('listCursor', () => {
  it('reads back every position it writes, as an opaque URL-safe string', () => {
    const instants = fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999 }), fc.uuid(), (date, micros, id) => {
        const at = date.toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
        const cursor = notifications.encode({ at, id });
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(notifications.decode(cursor)).toEqual({ at, id });
      }),
    );
  });

  it('reads back the point a walk began at, when a position carries one', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (asOf) => {
        const walked = { ...position, asOf: asOf.toString() };
        expect(notifications.decode(notifications.encode(walked))).toEqual(walked);
      }),
    );
    const forge = (text: string) => Buffer.from(text).toString('base64url');
    const sum = (fields: string[]) => hash('sha256', ['notifications', ...fields].join('\n'), 'base64url').slice(0, 16);
    for (const asOf of ['-1', '01', '1.5', '', '9223372036854775808', '99999999999999999999']) {
      const fields = [position.at, position.id, asOf];
      expect(notifications.decode(forge(`${fields.join(' ')} ${sum(fields)}`)), asOf).toBeUndefined();
    }
  });

  it('refuses a cursor not written for this kind of listing, or changed in any way', () => {
    const cursor = notifications.encode(position);
    expect(listCursor('comments').decode(cursor)).toBeUndefined();
    expect(notifications.decode(`${cursor}=`)).toBeUndefined();
    expect(notifications.decode(cursor.slice(0, -1))).toBeUndefined();
    fc.assert(
      fc.property(
        fc.nat({ max: cursor.length - 1 }),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
        (at, character) => {
          fc.pre(cursor[at] !== character);
          expect(notifications.decode(cursor.slice(0, at) + character + cursor.slice(at + 1))).toBeUndefined();
        },
      ),
    );
  });

  it('refuses a well-checked cursor whose position is not one: a day that does not exist, or a tie-break of the wrong kind', () => {
    const forge = (text: string) => Buffer.from(text).toString('base64url');
    // The check as written, to show that the position itself is read strictly too.
    const sum = (kind: string, at: string, id: string) =>
      hash('sha256', `${kind}\n${at}\n${id}`, 'base64url').slice(0, 16);
    const at = '2026-04-31T10:00:00.000000Z';
    expect(
      notifications.decode(forge(`${at} ${position.id} ${sum('notifications', at, position.id)}`)),
    ).toBeUndefined();
    expect(
      notifications.decode(forge(`${position.at} nope ${sum('notifications', position.at, 'nope')}`)),
    ).toBeUndefined();
    const groups = listCursor('groups', z.string().regex(/^[a-z_]+:[0-9a-f-]{36}$/));
    expect(groups.decode(groups.encode({ at: position.at, id: `tag_recipe:${position.id}` }))).toEqual({
      at: position.at,
      id: `tag_recipe:${position.id}`,
    });
  });

  it('is a query parameter: absent, a position, or a 400 issue', () => {
    const query = listQuery(20, notifications);
    expect(query.parse({}).cursor).toBeUndefined();
    expect(query.parse({ cursor: notifications.encode(position) }).cursor).toEqual(position);
    expect(query.safeParse({ cursor: 'garbage' }).success).toBe(false);
    expect(query.safeParse({ cursor: '' }).success).toBe(false);
  });
});

describe('listPagination', () => {
  it('has a null page on an answer to a cursor, and a null nextCursor on the last page', () => {
    expect(listPagination({ page: 2, limit: 10, cursor: position }, 25, null, notifications)).toEqual({
      page: null,
      limit: 10,
      total: 25,
      totalPages: 3,
      nextCursor: null,
    });
    const answer = listPagination({ page: 2, limit: 10 }, 25, position, notifications);
    expect(answer.page).toBe(2);
    expect(notifications.decode(answer.nextCursor!)).toEqual(position);
  });
});
