import fc from 'fast-check';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarnessWith, type TestUser } from './support.js';

/** Odd input on every endpoint: never a 500, and every 4xx is problem+json. */
let harness: CollectionsHarness;
let ada: TestUser;
let collectionId: string;
let savedItemId: string;
beforeAll(async () => {
  ({
    harness,
    users: [ada],
  } = await collectionsHarnessWith(['fuzzy']));
  const recipe = await harness.content('recipe', ada.user.id);
  const saved = await harness.app.inject({
    method: 'POST',
    url: '/api/saved-items',
    payload: { contentType: 'recipe', contentId: recipe.id },
    headers: ada.headers,
  });
  savedItemId = saved.json().savedItem.id;
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/collections',
    payload: { name: 'fuzz' },
    headers: ada.headers,
  });
  collectionId = created.json().collection.id;
});
afterAll(() => harness.close());

const numRuns = 100;
type Method = 'GET' | 'POST' | 'DELETE';

async function expectHandled(
  method: Method,
  url: string,
  body?: { payload: string | object; contentType?: string },
  authorized = true,
) {
  const headers: Record<string, string> = authorized ? { ...ada.headers } : {};
  if (body?.contentType) headers['content-type'] = body.contentType;
  const app = url.startsWith('/internal/') ? internalServerOf(harness.app) : harness.app;
  const response = await app.inject({ method, url, headers, ...(body ? { payload: body.payload } : {}) });
  expect(response.statusCode, `${method} ${url} ${JSON.stringify(body?.payload)}`).toBeLessThan(500);
  if (response.statusCode >= 400) expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
}

// Plausible fields with odd values, plain odd JSON, and text that is not JSON at all.
const field = fc.oneof(
  fc.jsonValue(),
  fc.uuid(),
  fc.constantFrom('recipe', 'post', '', ' ', '\u0000', 'x'.repeat(600)),
);
const bodies = fc.oneof(
  fc
    .record(
      { contentType: field, contentId: field, name: field, description: field, savedItemId: field },
      { requiredKeys: [] },
    )
    .map((payload) => ({ payload })),
  fc.jsonValue().map((value) => ({ payload: JSON.stringify(value), contentType: 'application/json' })),
  fc.string().map((text) => ({ payload: text, contentType: 'application/json' })),
);
const queries = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom('page', 'limit', 'standalone', 'content_type'), fc.string()),
      fc.oneof(fc.string(), fc.integer().map(String)),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => new URLSearchParams(pairs).toString());
const ids = () =>
  fc.oneof(
    fc.uuid(),
    fc.string({ minLength: 1 }),
    fc.constant(collectionId),
    fc.constant(savedItemId),
    fc.constant(ada.user.id),
  );
const segment = (id: string) => encodeURIComponent(id);

describe('odd input never gives a 500', () => {
  it('bodies of POST /api/saved-items and POST /api/collections', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/saved-items', '/api/collections'),
        bodies,
        fc.boolean(),
        async (url, body, authorized) => {
          await expectHandled('POST', url, body, authorized);
        },
      ),
      { numRuns },
    );
  });

  it('bodies of POST and DELETE /api/collections/{id}/items', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Method>('POST', 'DELETE'),
        ids(),
        bodies,
        fc.boolean(),
        async (method, id, body, authorized) => {
          await expectHandled(method, `/api/collections/${segment(id)}/items`, body, authorized);
        },
      ),
      { numRuns },
    );
  });

  it('query strings of the listings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/api/users/{user}/saved-items',
          '/api/users/{user}/collections',
          '/api/collections/{collection}/items',
        ),
        queries,
        async (path, query) => {
          const url = path.replace('{user}', ada.user.id).replace('{collection}', collectionId);
          await expectHandled('GET', `${url}?${query}`);
        },
      ),
      { numRuns },
    );
  });

  it('path identifiers of every route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<[Method, string]>(
          ['GET', '/api/collections/{id}'],
          ['GET', '/api/collections/{id}/items'],
          ['GET', '/api/users/{id}/saved-items'],
          ['GET', '/api/users/{id}/collections'],
          ['GET', '/internal/collections/{id}'],
          ['DELETE', '/api/saved-items/{id}'],
        ),
        ids(),
        async ([method, path], id) => {
          await expectHandled(method, path.replace('{id}', segment(id)));
        },
      ),
      { numRuns },
    );
  });
});
