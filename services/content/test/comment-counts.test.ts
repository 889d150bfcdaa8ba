import fc from 'fast-check';
import { commentCreated, commentDeleted, createEvent, newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentCounts } from '../src/comment-counts.js';
import { type ContentHarness, contentHarnessWith, type TestUser } from './support.js';

let harness: ContentHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await contentHarnessWith(['Ada_Counts'])),
);
afterAll(() => harness.close());

const context = { producer: 'comments', correlationId: 'c' };
type Target = 'recipe' | 'post' | 'collection';
const comment = (targetId: string, targetType: Target = 'recipe') => ({
  id: newId(),
  targetType,
  targetId,
  authorId: ada.id,
  createdAt: '2026-11-22T10:00:00.000Z',
});
const created = (data: ReturnType<typeof comment>) => createEvent(commentCreated, data, context);
const deleted = (data: ReturnType<typeof comment>) =>
  createEvent(commentDeleted, { ...data, deletedAt: '2026-11-22T10:05:00.000Z' }, context);

async function newRecipe(): Promise<string> {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/recipes',
    payload: { title: 'Counted', cameraModel: 'X-T5', filmSimulation: 'Velvia' },
    headers: harness.bearer(ada),
  });
  return response.json().recipe.id;
}

async function commentCount(recipeId: string): Promise<number> {
  return (await harness.app.inject({ method: 'GET', url: `/api/recipes/${recipeId}` })).json().recipe.commentCount;
}

describe('comment counts from comment events', () => {
  it('counts each comment once, a redelivered event included', async () => {
    const recipeId = await newRecipe();
    const first = created(comment(recipeId));
    await harness.deliver(first);
    await harness.deliver(first);
    await harness.deliver(created(comment(recipeId)));
    expect(await commentCount(recipeId)).toBe(2);
  });

  it('counts a comment once even when its creation comes twice as different events', async () => {
    const recipeId = await newRecipe();
    const one = comment(recipeId);
    await harness.deliver(created(one));
    await harness.deliver(created(one));
    expect(await commentCount(recipeId)).toBe(1);
  });

  it('leaves recipes alone for comments on posts and collections, and ignores unknown recipes', async () => {
    const recipeId = await newRecipe();
    await harness.deliver(created(comment(recipeId, 'post')));
    await harness.deliver(created(comment(recipeId, 'collection')));
    await harness.deliver(created(comment(newId())));
    expect(await commentCount(recipeId)).toBe(0);
  });

  it('takes a deleted comment off the count once, however often its deletion comes', async () => {
    const recipeId = await newRecipe();
    const [kept, gone] = [comment(recipeId), comment(recipeId)];
    await harness.deliver(created(kept));
    await harness.deliver(created(gone));
    const deletion = deleted(gone);
    await harness.deliver(deletion);
    await harness.deliver(deletion);
    await harness.deliver(deleted(gone));
    expect(await commentCount(recipeId)).toBe(1);
  });

  it('never counts a comment whose deletion came before its creation', async () => {
    const recipeId = await newRecipe();
    const late = comment(recipeId);
    await harness.deliver(deleted(late));
    await harness.deliver(created(late));
    expect(await commentCount(recipeId)).toBe(0);
  });

  it('ends at the number of live comments, whatever the order and repetition of their events', async () => {
    // Each comment: created, and maybe deleted; every event delivered once or twice, in any order, some at once.
    const plan = fc.array(fc.record({ deletedToo: fc.boolean(), twice: fc.boolean() }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(plan, fc.infiniteStream(fc.nat()), fc.boolean(), async (comments, order, together) => {
        const recipeId = await newRecipe();
        const events = comments.flatMap(({ deletedToo, twice }) => {
          const data = comment(recipeId);
          const own = deletedToo ? [created(data), deleted(data)] : [created(data)];
          return twice ? [...own, ...own] : own;
        });
        const shuffled = events
          .map((event) => ({ event, key: order.next().value as number }))
          .sort((a, b) => a.key - b.key);
        if (together) await Promise.all(shuffled.map(({ event }) => harness.deliver(event)));
        else for (const { event } of shuffled) await harness.deliver(event);
        expect(await commentCount(recipeId)).toBe(comments.filter((c) => !c.deletedToo).length);
      }),
      { numRuns: 25, seed: 20261123 },
    );
  });

  it('counts comments that come at once on several recipes, in batches, as two instances would', async () => {
    // Each instance counts what comes while it writes in one statement; the two take the recipes in opposite
    // orders, and every comment comes to both, so their batches cross on the same rows.
    const instances = [commentCounts(harness.pool), commentCounts(harness.pool)];
    const recipeIds = await Promise.all([newRecipe(), newRecipe(), newRecipe()]);
    const comments = recipeIds.flatMap((recipeId, n) => Array.from({ length: 10 * (n + 1) }, () => comment(recipeId)));
    await Promise.all([
      ...comments.map((one) => instances[0]!.added(one)),
      ...comments.toReversed().map((one) => instances[1]!.added(one)),
    ]);
    expect(await Promise.all(recipeIds.map(commentCount))).toEqual([10, 20, 30]);
  });
});
