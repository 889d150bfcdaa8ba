import fc from 'fast-check';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarnessWith, expectProblem, type TestUser } from '../support.js';

/** Whatever a client sends, the answer is never a 500, and every 4xx is problem+json. */
let harness: ContentHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await contentHarnessWith(['Ada_Odd', 'Bob_Odd'])),
);
afterAll(() => harness.close());

const RUNS = 150;

/** Strings a person, a bug or an attacker might send: any code points, controls, NUL, long ones. */
const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\n',
    'x'.repeat(5001),
    'Bob_Odd',
    'ADA_ODD',
    "'; DROP TABLE recipes; --",
  ),
);
const oddUrl = fc.oneof(
  fc.webUrl(),
  oddString,
  fc.constantFrom(
    'https://cdn.example.com/a\u0000.jpg',
    'javascript:alert(1)',
    'http://',
    `https://x.com/${'a'.repeat(2040)}`,
  ),
);
/** A field: mostly something close to right, sometimes any JSON at all, sometimes missing. */
const field = <T>(likely: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: likely }, { weight: 1, arbitrary: fc.jsonValue() });

const recipeBody = fc.record(
  {
    title: field(oddString),
    description: field(oddString),
    cameraModel: field(oddString),
    filmSimulation: field(oddString),
    coverImageUrl: field(fc.option(oddUrl)),
    imageUrls: field(fc.array(oddUrl, { maxLength: 22 })),
    taggedUsernames: field(fc.array(oddString, { maxLength: 22 })),
  },
  { requiredKeys: [] },
);
const postBody = fc.record(
  {
    title: field(oddString),
    coverImageUrl: field(fc.option(oddUrl)),
    taggedUsernames: field(fc.array(oddString, { maxLength: 22 })),
  },
  { requiredKeys: [] },
);

function expectHandled(response: Awaited<ReturnType<ContentHarness['app']['inject']>>) {
  expect(response.statusCode).toBeLessThan(500);
  if (response.statusCode >= 400) expectProblem(response, response.statusCode);
}

const post = (url: string, payload: string) =>
  harness.app.inject({
    method: 'POST',
    url,
    payload,
    headers: { ...harness.bearer(ada), 'content-type': 'application/json' },
  });

describe.each([
  ['/api/recipes', recipeBody],
  ['/api/posts', postBody],
])('POST %s', (url, body) => {
  it('answers any JSON body without a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 5, arbitrary: body }, { weight: 1, arbitrary: fc.jsonValue() }),
        async (payload) => {
          expectHandled(await post(url, JSON.stringify(payload)));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('answers any bytes sent as JSON without a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (payload) => {
        expectHandled(await post(url, payload));
      }),
      { numRuns: RUNS },
    );
  });
});

/** Every byte of the UTF-8 percent-encoded: lone surrogates too, which encodeURIComponent refuses. */
const percentEncoded = (value: string) =>
  [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

describe('path ids and listing queries', () => {
  // Encoded, or sent as is when it is a malformed encoding of its own.
  const segment = fc.oneof(
    fc.oneof(oddString, fc.uuid()).map(percentEncoded),
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '..'),
  );

  it('answers any recipe or post id without a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        segment,
        fc.constantFrom('/api/recipes/', '/api/posts/', '/internal/content/recipes/'),
        async (id, prefix) => {
          expectHandled(
            await (prefix.startsWith('/internal') ? internalServerOf(harness.app) : harness.app).inject({
              method: 'GET',
              url: `${prefix}${id}`,
            }),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('answers any user id and query string of the listing without a 500', async () => {
    const value = fc.oneof(
      fc.oneof(oddString, fc.integer().map(String), fc.double().map(String)).map(percentEncoded),
      fc.constantFrom('%', '%E0%A4%A'),
    );
    const query = fc.dictionary(fc.constantFrom('page', 'limit', 'other'), value, { maxKeys: 3 });
    const user = fc.oneof(segment, fc.constantFrom(ada.id, 'ada_odd'));
    await fc.assert(
      fc.asyncProperty(user, query, fc.boolean(), async (id, params, withToken) => {
        const search = Object.entries(params)
          .map(([key, v]) => `${key}=${v}`)
          .join('&');
        const response = await harness.app.inject({
          method: 'GET',
          url: `/api/users/${id}/recipes?${search}`,
          headers: withToken ? harness.bearer(ada) : {},
        });
        expectHandled(response);
      }),
      { numRuns: RUNS * 2 },
    );
  });
});
