import fc from 'fast-check';
import { createLogger } from '@recipes/logging';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../src/index.js';
import { nullablesAsTypeLists, responseSerializerCompiler } from '../src/serializer.js';

const author = z.object({ id: z.uuid(), username: z.string(), avatarUrl: z.string().nullable() });
const item = z.object({
  id: z.uuid(),
  title: z.string(),
  note: z.string().nullable(),
  tags: z.array(z.string()),
  count: z.number().int(),
  isRead: z.boolean(),
  kind: z.enum(['recipe', 'post']),
  commentId: z.uuid().optional(),
  parentId: z.uuid().nullable(),
  editedAt: z.iso.datetime().nullable(),
  place: z.object({ name: z.string(), at: z.iso.datetime() }).nullable(),
  author,
});
const page = z.object({
  data: z.array(item),
  pagination: z.object({ page: z.number().int(), total: z.number().int() }),
});

/** Values of `page`'s shape, each object with a property the schema does not name. */
const extra = { secret: fc.string() };
const anItem = fc.record(
  {
    id: fc.uuid(),
    title: fc.string(),
    note: fc.option(fc.string(), { nil: null }),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    count: fc.integer(),
    isRead: fc.boolean(),
    kind: fc.constantFrom('recipe', 'post'),
    commentId: fc.uuid(),
    parentId: fc.option(fc.uuid(), { nil: null }),
    editedAt: fc.option(
      fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(Date.UTC(9999, 0)) }).map((d) => d.toISOString()),
      { nil: null },
    ),
    place: fc.option(fc.record({ name: fc.string(), at: fc.constant('2026-11-22T10:00:00.000Z'), ...extra }), {
      nil: null,
    }),
    author: fc.record({
      id: fc.uuid(),
      username: fc.string(),
      avatarUrl: fc.option(fc.webUrl(), { nil: null }),
      ...extra,
    }),
    ...extra,
  },
  {
    requiredKeys: [
      'id',
      'title',
      'note',
      'tags',
      'count',
      'isRead',
      'kind',
      'parentId',
      'editedAt',
      'place',
      'author',
      'secret',
    ],
  },
);
const aPage = fc.record({
  data: fc.array(anItem, { maxLength: 4 }),
  pagination: fc.record({ page: fc.nat(), total: fc.nat(), ...extra }),
  ...extra,
});

describe('the response serializer', () => {
  it('writes exactly what zod would give, whatever the value of the shape: unnamed properties left out', () => {
    const serialize = responseSerializerCompiler(false)({ schema: page, method: 'GET', url: '/', httpStatus: '200' });
    fc.assert(
      fc.property(aPage, (value) => {
        expect(JSON.parse(serialize(value))).toEqual(page.parse(value));
      }),
      { numRuns: 300 },
    );
  });

  it('writes a nullable id, time or object as a type list, which needs no check of each value to choose', () => {
    const anyOfs: unknown[] = [];
    const collect = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      if ('anyOf' in node) anyOfs.push(node.anyOf);
      Object.values(node).forEach(collect);
    };
    const jsonSchema = z.toJSONSchema(page, { target: 'draft-7', io: 'output' });
    collect(jsonSchema);
    expect(anyOfs, 'zod writes the nullables with a format as anyOf').toHaveLength(3);
    anyOfs.length = 0;
    collect(nullablesAsTypeLists(jsonSchema));
    expect(anyOfs).toEqual([]);
    // A property named like a keyword whose value is data is a schema all the same.
    anyOfs.length = 0;
    collect(nullablesAsTypeLists(z.toJSONSchema(z.object({ default: z.uuid().nullable() }), { target: 'draft-7' })));
    expect(anyOfs).toEqual([]);
    // A union of two types other than null is left as it is.
    const union = { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'integer' }] };
    expect(nullablesAsTypeLists(union)).toEqual(union);
  });

  it('checks formats only when responses are validated (the tests); a value of the wrong type is refused either way', async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    for (const validateResponses of [true, false]) {
      const app = await createApp({ title: 'serializer', logger, validateResponses });
      app.get('/format', { schema: { response: { 200: z.object({ id: z.uuid() }) } } }, async () => ({
        id: 'not-a-uuid',
      }));
      app.get(
        '/type',
        { schema: { response: { 200: z.object({ count: z.number().int() }) } } },
        async () => ({ count: 'many' }) as never,
      );
      const format = await app.inject({ method: 'GET', url: '/format' });
      expect(format.statusCode, `format, validateResponses: ${validateResponses}`).toBe(validateResponses ? 500 : 200);
      expect(
        (await app.inject({ method: 'GET', url: '/type' })).statusCode,
        `type, validateResponses: ${validateResponses}`,
      ).toBe(500);
      await app.close();
    }
  });
});
