import { recipeDeleted } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CollectionsHarness,
  collectionsHarnessWith,
  expectProblem,
  type TestUser,
  totalsAndRecount,
} from '../../support.js';

let harness: CollectionsHarness, ada: TestUser, bob: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada, bob],
    } = await collectionsHarnessWith(['ada', 'bob'])),
);
afterAll(() => harness.close());

/** recipe.deleted: the content directory marks it deleted, and the trigger of migrations/002_counts.sql forgets it. */
describe('content deleted later', () => {
  it('leaves the saved items, the collections and the totals of everyone who saved it', async () => {
    const recipe = await harness.content('recipe', bob.user.id);
    const adaItem = await harness.saved(ada, 'recipe', recipe.id);
    const bobItem = await harness.saved(bob, 'recipe', recipe.id);
    const board = await harness.collectionOf(ada, adaItem.id);
    const before = await harness.listing(ada);

    await harness.publish(recipeDeleted, { ...recipe, deleted: true, revision: 1 });

    const after = await harness.listing(ada);
    expect(after.savedItems.map((i: { id: string }) => i.id)).not.toContain(adaItem.id);
    expect(after.pagination.total).toBe(before.pagination.total - 1);
    expect((await harness.listing(bob)).savedItems.map((i: { id: string }) => i.id)).not.toContain(bobItem.id);
    expect(await harness.itemCount(board)).toBe(0);
    expectProblem(await harness.save(ada, { contentType: 'recipe', contentId: recipe.id }), 404);
    const { kept, counted } = await totalsAndRecount(harness.pool);
    expect(kept).toEqual(counted);
  });
});
