import { commentCreated, createEvent, newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness, type TestUser } from '../support.js';

let harness: ContentHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await contentHarness();
  ada = await harness.knownUser('Ada_Counts');
});
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
});
