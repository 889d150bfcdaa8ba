import { newId } from '@recipes/contracts';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarnessWith, expectProblem, type TestUser } from '../support.js';

let harness: CollectionsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await collectionsHarnessWith(['ada'])),
);
afterAll(() => harness.close());

describe('GET /internal/collections/{id}', () => {
  const lookup = (url: string) => internalServerOf(harness.app).inject({ method: 'GET', url });

  it('gives the comments service the snapshot, deleted or not, and 404 for one that never existed', async () => {
    const collection = await harness.created(ada, { name: 'Internal' });
    const snapshot = {
      id: collection.id,
      ownerId: ada.user.id,
      name: 'Internal',
      deleted: false,
      revision: 0,
      createdAt: collection.createdAt,
    };
    expect((await lookup(`/internal/collections/${collection.id}`)).json()).toEqual({ collection: snapshot });
    await harness.call('DELETE', `/api/collections/${collection.id}`, ada);
    expect((await lookup(`/internal/collections/${collection.id}`)).json()).toEqual({
      // Deleted, it keeps no name (migrations/006).
      collection: { ...snapshot, name: '', deleted: true, revision: 1 },
    });
    expectProblem(await lookup(`/internal/collections/${newId()}`), 404);
    expectProblem(await lookup('/internal/collections/nope'), 404);
  });

  it('is not served on the public port at all', async () => {
    const collection = await harness.created(ada, { name: 'Not public' });
    expect((await lookup(`/internal/collections/${collection.id}`)).statusCode).toBe(200);
    expectProblem(await harness.call('GET', `/internal/collections/${collection.id}`), 404);
  });

  it('is not in the public API document', async () => {
    const document = (await harness.call('GET', '/openapi.json')).json();
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
