import { createLogger } from '@recipes/logging';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type App, createApp, JSON_DEPTH_LIMIT, nestsDeeperThan } from '../src/index.js';

/** How many objects and arrays `value` has open at its deepest point: the definition the scan must agree with. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/** `levels` objects and arrays, one inside the other, around `inner`: `{"a":[{"a":[… inner …]}]}`. */
function nested(levels: number, inner = '1'): string {
  const opens = Array.from({ length: levels }, (_, level) => (level % 2 === 0 ? '{"a":' : '['));
  const closes = opens.map((open) => (open === '[' ? ']' : '}')).reverse();
  return `${opens.join('')}${inner}${closes.join('')}`;
}

/** An object whose one field is arrays `levels - 1` deep: two bytes a level, as a hostile body would be. */
const deepArrays = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

/** Strings full of what the scan must not count: brackets, quotes and backslashes, escaped or not. */
const trickyString = fc.string({
  unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ', '\u2028'),
  maxLength: 12,
});
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 3 }),
  ),
})).value;

describe('nestsDeeperThan', () => {
  it('agrees with the depth of any value, however it is spaced, whatever its strings hold', () => {
    fc.assert(
      fc.property(
        anyJson,
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(undefined, 2, '\t'),
        (value, limit, space) => {
          expect(nestsDeeperThan(JSON.stringify(value, null, space), limit)).toBe(depthOf(value) > limit);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers a body nested far past any limit without recursing', () => {
    expect(nestsDeeperThan(deepArrays(1_000_000), JSON_DEPTH_LIMIT)).toBe(true);
    expect(nestsDeeperThan(`"${'['.repeat(1_000_000)}"`, JSON_DEPTH_LIMIT)).toBe(false);
  });
});

let app: App;
beforeAll(async () => {
  app = await createApp({
    title: 'bodies',
    logger: createLogger({ service: 'test', level: 'silent' }),
    validateResponses: true,
  });
  app.post('/echo', { schema: { body: z.object({ a: z.unknown() }) } }, async (request) => request.body);
  await app.ready();
});
afterAll(() => app.close());

const post = (payload: string) =>
  app.inject({ method: 'POST', url: '/echo', payload, headers: { 'content-type': 'application/json' } });

describe(`a JSON body (at most ${JSON_DEPTH_LIMIT} levels deep)`, () => {
  it(`is taken at ${JSON_DEPTH_LIMIT} levels and refused from ${JSON_DEPTH_LIMIT + 1} on, 30,000 included, as 400 VALIDATION_ERROR`, async () => {
    const deepest = nested(JSON_DEPTH_LIMIT);
    const accepted = await post(deepest);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual(JSON.parse(deepest));

    for (const body of [nested(JSON_DEPTH_LIMIT + 1), deepArrays(JSON_DEPTH_LIMIT + 1), deepArrays(30_000)]) {
      const refused = await post(body);
      const context = `${body.slice(0, 40)}… (${body.length} bytes)`;
      expect(refused.statusCode, context).toBe(400);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        detail: `The body is nested too deeply: at most ${JSON_DEPTH_LIMIT} levels of objects and arrays`,
        errors: [{ path: 'body' }],
      });
    }
  });

  it('is parsed as before otherwise: a repeated key keeps its last value, a prototype key is refused', async () => {
    expect((await post('{"a":1,"a":2,"a":[3]}')).json()).toEqual({ a: [3] });
    expect((await post(`{"a":"${'['.repeat(1000)}"}`)).json()).toEqual({ a: '['.repeat(1000) });
    for (const payload of [
      '{"a":1,"__proto__":{"isAdmin":true}}',
      '{"a":1,"constructor":{"prototype":{"isAdmin":true}}}',
      '{"a":',
      '',
    ]) {
      const refused = await post(payload);
      expect(refused.statusCode, payload).toBe(400);
      expect(refused.json().code).toBe('VALIDATION_ERROR');
    }
  });
});
