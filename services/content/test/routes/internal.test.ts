import { contentSnapshotSchema } from '@recipes/contracts';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarnessWith, expectProblem, type TestUser } from '../support.js';

let harness: ContentHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await contentHarnessWith(['Ada_Internal'])),
);
afterAll(() => harness.close());

async function create(kind: 'recipes' | 'posts', body: Record<string, unknown>) {
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/${kind}`,
    payload: body,
    headers: harness.bearer(ada),
  });
  expect(response.statusCode).toBe(201);
  return response.json();
}

const lookup = (kind: 'recipes' | 'posts', id: string) =>
  internalServerOf(harness.app).inject({ method: 'GET', url: `/internal/content/${kind}/${id}` });

describe('/internal/content', () => {
  it('answers a recipe’s snapshot, with the summary’s cover', async () => {
    const { recipe } = await create('recipes', {
      title: 'Portra',
      cameraModel: 'X-E4',
      filmSimulation: 'Classic Neg',
      imageUrls: ['https://cdn.example.com/1.jpg'],
    });
    const response = await lookup('recipes', recipe.id);
    expect(response.statusCode).toBe(200);
    expect(contentSnapshotSchema.parse(response.json().content)).toEqual({
      id: recipe.id,
      authorId: ada.id,
      title: 'Portra',
      coverImageUrl: 'https://cdn.example.com/1.jpg',
      deleted: false,
      revision: 0,
      createdAt: recipe.createdAt,
    });
  });

  it('answers deleted content too, marked deleted with its new revision', async () => {
    const { post } = await create('posts', { title: 'Gone soon' });
    await harness.app.inject({ method: 'DELETE', url: `/api/posts/${post.id}`, headers: harness.bearer(ada) });
    const response = await lookup('posts', post.id);
    expect(response.statusCode).toBe(200);
    expect(response.json().content).toMatchObject({ id: post.id, deleted: true, revision: 1 });
  });

  it('answers 404 for what never existed, or is another kind', async () => {
    const { post } = await create('posts', { title: 'A post' });
    expectProblem(await lookup('recipes', post.id), 404);
    expectProblem(await lookup('posts', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b'), 404);
    expectProblem(await lookup('recipes', 'not-a-uuid'), 404);
  });

  it('is not served on the public port at all, not even for deleted content', async () => {
    const { recipe } = await create('recipes', { title: 'Hidden', cameraModel: 'X-E4', filmSimulation: 'Acros' });
    await harness.app.inject({ method: 'DELETE', url: `/api/recipes/${recipe.id}`, headers: harness.bearer(ada) });
    expect((await lookup('recipes', recipe.id)).statusCode).toBe(200);
    expectProblem(await harness.app.inject({ method: 'GET', url: `/internal/content/recipes/${recipe.id}` }), 404);
  });

  it('is not in the public API document', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/posts',
      '/api/posts/{id}',
      '/api/recipes',
      '/api/recipes/{id}',
      '/api/recipes/{id}/favorite',
      '/api/recipes/{id}/repost',
      '/api/users/{id}/recipes',
    ]);
  });
});

describe('/internal/content/export', () => {
  it('gives a user’s live recipes page by page, in the API’s shape, and only on the internal port', async () => {
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three'])
      ids.push((await create('recipes', { title, cameraModel: 'X100V', filmSimulation: 'Acros' })).recipe.id);
    const deleted = (await create('recipes', { title: 'Gone', cameraModel: 'X100V', filmSimulation: 'Acros' })).recipe
      .id;
    expect(
      (await harness.app.inject({ method: 'DELETE', url: `/api/recipes/${deleted}`, headers: harness.bearer(ada) }))
        .statusCode,
    ).toBe(200);
    const page = (query: string) =>
      internalServerOf(harness.app).inject({
        method: 'GET',
        url: `/internal/content/export/${ada.id}/recipes?${query}`,
      });
    const first = (await page('limit=2')).json();
    const mine = (items: Array<{ id: string }>) =>
      items.map((item) => item.id).filter((id) => ids.includes(id) || id === deleted);
    // Recipes made by earlier tests of this file come first (ids are time-ordered): walk to the end.
    const seen: Array<{ id: string; author: { id: string } }> = [...first.items];
    let next: string | null = first.next;
    while (next !== null) {
      const body = (await page(`limit=2&after=${next}`)).json();
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items);
      next = body.next;
    }
    expect(mine(seen)).toEqual(ids);
    expect(seen.every((recipe) => recipe.author.id === ada.id)).toBe(true);
    expectProblem(await page('limit=1000'), 400);
    expect(
      (await harness.app.inject({ method: 'GET', url: `/internal/content/export/${ada.id}/recipes` })).statusCode,
    ).toBe(404);
  });
});
