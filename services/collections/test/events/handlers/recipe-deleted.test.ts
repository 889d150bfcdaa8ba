import { recipeDeleted } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarness, expectProblem, type TestUser, totalsAndRecount } from '../../support.js';

let harness: CollectionsHarness;
let ada: TestUser;
let bob: TestUser;
beforeAll(async () => {
  harness = await collectionsHarness();
  ada = await harness.user('ada');
  bob = await harness.user('bob');
});
afterAll(() => harness.close());

const save = (user: TestUser | undefined, payload: unknown) =>
  harness.app.inject({ method: 'POST', url: '/api/saved-items', payload: payload as object, headers: user?.headers ?? {} });
const listing = async (user: TestUser) =>
  (await harness.app.inject({ method: 'GET', url: `/api/users/${user.user.id}/saved-items?limit=100` })).json();

async function saved(user: TestUser, contentType: 'recipe' | 'post', contentId: string): Promise<{ id: string }> {
  const response = await save(user, { contentType, contentId });
  expect(response.statusCode).toBe(201);
  return response.json().savedItem;
}

async function collectionOf(user: TestUser, ...savedItemIds: string[]): Promise<string> {
  const created = await harness.app.inject({ method: 'POST', url: '/api/collections', payload: { name: 'Board' }, headers: user.headers });
  const { id } = created.json().collection;
  for (const savedItemId of savedItemIds) {
    const added = await harness.app.inject({ method: 'POST', url: `/api/collections/${id}/items`, payload: { savedItemId }, headers: user.headers });
    expect(added.statusCode).toBe(201);
  }
  return id;
}

const itemCount = async (collectionId: string) =>
  (await harness.app.inject({ method: 'GET', url: `/api/collections/${collectionId}` })).json().collection.itemCount;

/** recipe.deleted: the content directory marks it deleted, and the trigger of migrations/002_counts.sql forgets it. */
describe('content deleted later', () => {
  it('leaves the saved items, the collections and the totals of everyone who saved it', async () => {
    const recipe = await harness.content('recipe', bob.user.id);
    const adaItem = await saved(ada, 'recipe', recipe.id);
    const bobItem = await saved(bob, 'recipe', recipe.id);
    const board = await collectionOf(ada, adaItem.id);
    const before = await listing(ada);

    await harness.publish(recipeDeleted, { ...recipe, deleted: true, revision: 1 });

    const after = await listing(ada);
    expect(after.savedItems.map((i: { id: string }) => i.id)).not.toContain(adaItem.id);
    expect(after.pagination.total).toBe(before.pagination.total - 1);
    expect((await listing(bob)).savedItems.map((i: { id: string }) => i.id)).not.toContain(bobItem.id);
    expect(await itemCount(board)).toBe(0);
    expectProblem(await save(ada, { contentType: 'recipe', contentId: recipe.id }), 404);
    const { kept, counted } = await totalsAndRecount(harness.pool);
    expect(kept).toEqual(counted);
  });
});
