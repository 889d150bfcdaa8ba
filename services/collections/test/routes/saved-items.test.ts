import { newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CollectionsHarness,
  collectionsHarness,
  collectionsHarnessWith,
  expectProblem,
  ISO_MILLIS,
  type TestUser,
  totalsAndRecount,
} from '../support.js';

let harness: CollectionsHarness, ada: TestUser, bob: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada, bob],
    } = await collectionsHarnessWith(['ada', 'bob'])),
);
afterAll(() => harness.close());

describe('POST /api/saved-items', () => {
  it('saves a recipe and answers with the item, its content and the content’s author', async () => {
    const recipe = await harness.content('recipe', bob.user.id, {
      title: 'Kodachrome 64',
      coverImageUrl: 'https://cdn.example.com/k.jpg',
    });
    const response = await harness.save(ada, { contentType: 'recipe', contentId: recipe.id });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      savedItem: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        userId: ada.user.id,
        contentType: 'recipe',
        contentId: recipe.id,
        createdAt: expect.stringMatching(ISO_MILLIS),
        content: {
          title: 'Kodachrome 64',
          coverImageUrl: 'https://cdn.example.com/k.jpg',
          author: { id: bob.user.id, username: 'bob', avatarUrl: null },
        },
      },
    });
  });

  it('answers 200 with the same item when the content is saved already', async () => {
    const post = await harness.content('post', bob.user.id);
    const first = await harness.saved(ada, 'post', post.id);
    const again = await harness.save(ada, { contentType: 'post', contentId: post.id });
    expect(again.statusCode).toBe(200);
    expect(again.json().savedItem).toEqual(first);
    // Another user saving it gets an item of their own.
    expect((await harness.save(bob, { contentType: 'post', contentId: post.id })).json().savedItem.id).not.toBe(
      first.id,
    );
  });

  it('makes one saved item of ten concurrent saves of the same content', async () => {
    const recipe = await harness.content('recipe', bob.user.id);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => harness.save(ada, { contentType: 'recipe', contentId: recipe.id })),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((r) => r.json().savedItem.id)).size).toBe(1);
    const { rows } = await harness.pool.query('SELECT count(*)::int AS n FROM saved_items WHERE content_id = $1', [
      recipe.id,
    ]);
    expect(rows[0].n).toBe(1);
    const { kept, counted } = await totalsAndRecount(harness.pool);
    expect(kept).toEqual(counted);
  });

  it('saves content created a moment ago, before its event arrives, asking the content service once', async () => {
    const author = await harness.user('fresh_author', { quietly: true });
    const recipe = await harness.content('recipe', author.user.id, { quietly: true, title: 'Fresh' });
    const response = await harness.save(ada, { contentType: 'recipe', contentId: recipe.id });
    expect(response.statusCode).toBe(201);
    expect(response.json().savedItem.content).toEqual({
      title: 'Fresh',
      coverImageUrl: null,
      author: { id: author.user.id, username: 'fresh_author', avatarUrl: null },
    });
    const { rows } = await harness.pool.query('SELECT title FROM content_items WHERE id = $1', [recipe.id]);
    expect(rows).toEqual([{ title: 'Fresh' }]);
  });

  it('answers 404 for content that does not exist, is deleted, or is of the other type', async () => {
    const deleted = await harness.content('recipe', bob.user.id, { deleted: true, revision: 1 });
    const quietlyDeleted = await harness.content('post', bob.user.id, { deleted: true, revision: 1, quietly: true });
    const post = await harness.content('post', bob.user.id);
    for (const payload of [
      { contentType: 'recipe', contentId: newId() },
      { contentType: 'recipe', contentId: deleted.id },
      { contentType: 'post', contentId: quietlyDeleted.id },
      { contentType: 'recipe', contentId: post.id },
    ]) {
      expect(expectProblem(await harness.save(ada, payload), 404).code).toBe('NOT_FOUND');
    }
  });

  it.each([
    ['no body fields', {}],
    ['an unknown content type', { contentType: 'collection', contentId: newId() }],
    ['a content id that is not a UUID', { contentType: 'recipe', contentId: 'abc' }],
    ['a numeric content id', { contentType: 'recipe', contentId: 12 }],
  ])('answers 400 for %s', async (_case, payload) => {
    const problem = expectProblem(await harness.save(ada, payload), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors?.length).toBeGreaterThan(0);
  });

  it('needs a valid token, checked before the body', async () => {
    expectProblem(await harness.save(undefined, { contentType: 'nope' }), 401);
    const forged = await harness.app.inject({
      method: 'POST',
      url: '/api/saved-items',
      payload: { contentType: 'recipe', contentId: newId() },
      headers: { authorization: 'Bearer not.a.token' },
    });
    expectProblem(forged, 401);
  });

  it('answers 503, not 404, when the content service cannot be asked', async () => {
    const offline = await collectionsHarness({ CONTENT_INTERNAL_URL: 'http://127.0.0.1:1' });
    try {
      const user = await offline.user('offline_user');
      const response = await offline.app.inject({
        method: 'POST',
        url: '/api/saved-items',
        payload: { contentType: 'recipe', contentId: newId() },
        headers: user.headers,
      });
      expect(expectProblem(response, 503).code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await offline.close();
    }
  });
});

describe('DELETE /api/saved-items/{id}', () => {
  it('unsaves the owner’s item and takes it out of every collection', async () => {
    const recipe = await harness.content('recipe', bob.user.id);
    const kept = await harness.saved(ada, 'post', (await harness.content('post', bob.user.id)).id);
    const item = await harness.saved(ada, 'recipe', recipe.id);
    const [first, second] = [
      await harness.collectionOf(ada, item.id, kept.id),
      await harness.collectionOf(ada, item.id),
    ];
    expect([await harness.itemCount(first), await harness.itemCount(second)]).toEqual([2, 1]);

    const response = await harness.unsave(ada, item.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Item unsaved' });
    expect([await harness.itemCount(first), await harness.itemCount(second)]).toEqual([1, 0]);
    expect((await harness.listing(ada)).savedItems.map((i: { id: string }) => i.id)).not.toContain(item.id);
    expectProblem(await harness.unsave(ada, item.id), 404);
    const { kept: keptCounts, counted } = await totalsAndRecount(harness.pool);
    expect(keptCounts).toEqual(counted);
  });

  it('answers 401 without a token, 404 for an unknown or malformed id, 403 for someone else’s item', async () => {
    const item = await harness.saved(ada, 'recipe', (await harness.content('recipe', bob.user.id)).id);
    expectProblem(await harness.unsave(undefined, item.id), 401);
    expectProblem(await harness.unsave(ada, newId()), 404);
    expectProblem(await harness.unsave(ada, 'not-a-uuid'), 404);
    expect(expectProblem(await harness.unsave(bob, item.id), 403).code).toBe('FORBIDDEN');
    expect((await harness.unsave(ada, item.id)).statusCode).toBe(200);
  });
});
