import { newId } from '@recipes/contracts';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarness, expectProblem, type TestUser } from '../support.js';

let harness: CollectionsHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await collectionsHarness();
  ada = await harness.user('ada');
});
afterAll(() => harness.close());

type Method = 'GET' | 'POST' | 'DELETE';
const call = (method: Method, url: string, user?: TestUser, payload?: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method, url, headers: { ...(user?.headers ?? {}), ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });

async function created(user: TestUser, body: Record<string, unknown> = { name: 'Street' }) {
  const response = await call('POST', '/api/collections', user, body);
  expect(response.statusCode).toBe(201);
  return response.json().collection as { id: string; name: string; description: string; itemCount: number; createdAt: string };
}

describe('GET /internal/collections/{id}', () => {
  const lookup = (url: string) => internalServerOf(harness.app).inject({ method: 'GET', url });

  it('gives the comments service the snapshot, deleted or not, and 404 for one that never existed', async () => {
    const collection = await created(ada, { name: 'Internal' });
    const snapshot = { id: collection.id, ownerId: ada.user.id, name: 'Internal', deleted: false, revision: 0, createdAt: collection.createdAt };
    expect((await lookup(`/internal/collections/${collection.id}`)).json()).toEqual({ collection: snapshot });
    await call('DELETE', `/api/collections/${collection.id}`, ada);
    expect((await lookup(`/internal/collections/${collection.id}`)).json()).toEqual({ collection: { ...snapshot, deleted: true, revision: 1 } });
    expectProblem(await lookup(`/internal/collections/${newId()}`), 404);
    expectProblem(await lookup('/internal/collections/nope'), 404);
  });

  it('is not served on the public port at all', async () => {
    const collection = await created(ada, { name: 'Not public' });
    expect((await lookup(`/internal/collections/${collection.id}`)).statusCode).toBe(200);
    expectProblem(await call('GET', `/internal/collections/${collection.id}`), 404);
  });

  it('is not in the public API document', async () => {
    const document = (await call('GET', '/openapi.json')).json();
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/collections',
      '/api/collections/{id}',
      '/api/collections/{id}/items',
      '/api/saved-items',
      '/api/saved-items/{id}',
      '/api/users/{id}/collections',
      '/api/users/{id}/saved-items',
    ]);
  });
});
