import { newId, recipeUpdated, userUpdated } from '@recipes/contracts';
import { pagesAtOdds, readWhileWriting } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarnessWith, expectProblem, type TestUser } from '../support.js';

let harness: CollectionsHarness, author: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [author],
    } = await collectionsHarnessWith(['author'])),
);
afterAll(() => harness.close());

interface Listed {
  savedItems: {
    id: string;
    contentType: string;
    content: { title: string; coverImageUrl: string | null; author: { avatarUrl: string | null } };
  }[];
  pagination: { page: number; limit: number; total: number; totalPages: number; nextCursor: string | null };
}

const list = (userId: string, query = '', headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'GET', url: `/api/users/${userId}/saved-items${query}`, headers });
const listed = async (userId: string, query = ''): Promise<Listed> => {
  const response = await list(userId, query);
  expect(response.statusCode).toBe(200);
  return response.json();
};
const ids = (listing: Listed) => listing.savedItems.map((item) => item.id);

async function save(user: TestUser, contentType: 'recipe' | 'post', title = 'T'): Promise<string> {
  const content = await harness.content(contentType, author.user.id, { title });
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/saved-items',
    payload: { contentType, contentId: content.id },
    headers: user.headers,
  });
  return response.json().savedItem.id;
}

async function collect(user: TestUser, savedItemIds: string[]): Promise<string> {
  const { collection } = (
    await harness.app.inject({ method: 'POST', url: '/api/collections', payload: { name: 'c' }, headers: user.headers })
  ).json();
  for (const savedItemId of savedItemIds) {
    await harness.app.inject({
      method: 'POST',
      url: `/api/collections/${collection.id}/items`,
      payload: { savedItemId },
      headers: user.headers,
    });
  }
  return collection.id;
}

/**
 * A user with 30 saved items, recipes and posts alternating, saved in this order; every third item is in
 * a collection, two of them in two. `newestFirst` is the order the listing must show.
 */
async function collector() {
  const user = await harness.user(`collector_${newId().slice(-8)}`);
  const saved: { id: string; contentType: 'recipe' | 'post'; inCollection: boolean }[] = [];
  for (let index = 0; index < 30; index++) {
    const contentType = index % 2 === 0 ? 'recipe' : 'post';
    saved.push({ id: await save(user, contentType, `item ${index}`), contentType, inCollection: index % 3 === 0 });
  }
  const collected = saved.filter((item) => item.inCollection).map((item) => item.id);
  await collect(user, collected);
  await collect(user, collected.slice(0, 2));
  return { user, newestFirst: [...saved].reverse() };
}

let shelf: Awaited<ReturnType<typeof collector>>;
beforeAll(async () => {
  shelf = await collector();
});

async function allPages(
  userId: string,
  query: string,
  limit: number,
): Promise<{ ids: string[]; totals: number[]; pages: number }> {
  const first = await listed(userId, `?limit=${limit}${query}`);
  const collectedIds = [...ids(first)];
  const totals = [first.pagination.total];
  for (let page = 2; page <= first.pagination.totalPages; page++) {
    const next = await listed(userId, `?limit=${limit}&page=${page}${query}`);
    collectedIds.push(...ids(next));
    totals.push(next.pagination.total);
  }
  return { ids: collectedIds, totals, pages: first.pagination.totalPages };
}

describe('GET /api/users/{id}/saved-items', () => {
  it('lists every item newest first, 12 to a page by default', async () => {
    const first = await listed(shelf.user.user.id);
    expect(first.pagination).toEqual({ page: 1, limit: 12, total: 30, totalPages: 3, nextCursor: expect.any(String) });
    expect(ids(first)).toEqual(shelf.newestFirst.slice(0, 12).map((item) => item.id));
    expect(first.savedItems[0]).toEqual({
      id: shelf.newestFirst[0]!.id,
      userId: shelf.user.user.id,
      contentType: 'post',
      contentId: expect.any(String),
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      content: {
        title: 'item 29',
        coverImageUrl: null,
        author: { id: author.user.id, username: 'author', avatarUrl: null },
      },
    });
  });

  it('with standalone=true keeps only items in no collection, before paging, across every page', async () => {
    const standalone = shelf.newestFirst.filter((item) => !item.inCollection).map((item) => item.id);
    const walked = await allPages(shelf.user.user.id, '&standalone=true', 7);
    expect(walked.ids).toEqual(standalone);
    expect(walked.pages).toBe(3);
    expect(new Set(walked.totals)).toEqual(new Set([20]));
  });

  it('filters by content type, alone and with standalone', async () => {
    const recipes = shelf.newestFirst.filter((item) => item.contentType === 'recipe');
    expect((await allPages(shelf.user.user.id, '&content_type=recipe', 4)).ids).toEqual(recipes.map((item) => item.id));
    const standalonePosts = shelf.newestFirst.filter((item) => item.contentType === 'post' && !item.inCollection);
    const walked = await allPages(shelf.user.user.id, '&content_type=post&standalone=true', 4);
    expect(walked.ids).toEqual(standalonePosts.map((item) => item.id));
    expect(walked.totals[0]).toBe(standalonePosts.length);
  });

  it.each(['false', 'TRUE', '1', 'yes', ''])('keeps every item for standalone=%j', async (value) => {
    expect((await listed(shelf.user.user.id, `?standalone=${value}`)).pagination.total).toBe(30);
  });

  it('keeps every item when standalone is repeated', async () => {
    expect((await listed(shelf.user.user.id, '?standalone=true&standalone=true')).pagination.total).toBe(30);
  });

  it.each(['collection', 'Recipe', '', 'posts'])('answers 400 for content_type=%j', async (value) => {
    expect(expectProblem(await list(shelf.user.user.id, `?content_type=${value}`), 400).code).toBe('VALIDATION_ERROR');
  });

  it.each(['page=0', 'page=-1', 'page=1.5', 'limit=0', 'limit=abc', 'page=1e3'])(
    'answers 400 for %s',
    async (query) => {
      expectProblem(await list(shelf.user.user.id, `?${query}`), 400);
    },
  );

  it('clamps the limit to 100, and answers a page past the end with no items and the true totals', async () => {
    expect((await listed(shelf.user.user.id, '?limit=1000')).pagination).toEqual({
      page: 1,
      limit: 100,
      total: 30,
      totalPages: 1,
      nextCursor: null,
    });
    expect(await listed(shelf.user.user.id, '?page=50&standalone=true')).toEqual({
      savedItems: [],
      pagination: { page: 50, limit: 12, total: 20, totalPages: 2, nextCursor: null },
    });
  });

  it('breaks ties in createdAt by id, newest id first', async () => {
    const user = await harness.user('tie_breaker');
    const saved = [await save(user, 'recipe'), await save(user, 'post'), await save(user, 'recipe')];
    await harness.pool.query("UPDATE saved_items SET created_at = '2026-01-01T00:00:00Z' WHERE user_id = $1", [
      user.user.id,
    ]);
    expect(ids(await listed(user.user.id))).toEqual([...saved].sort().reverse());
  });

  it('answers 404 for an unknown user or a malformed id, and lists nothing for a user registered a moment ago', async () => {
    expectProblem(await list(newId()), 404);
    expectProblem(await list('author'), 404);
    const fresh = await harness.user('fresh_one', { quietly: true });
    expect((await listed(fresh.user.id)).pagination).toEqual({
      page: 1,
      limit: 12,
      total: 0,
      totalPages: 0,
      nextCursor: null,
    });
  });

  it('is public by default, but an invalid token is still 401', async () => {
    expect((await list(shelf.user.user.id, '', author.headers)).statusCode).toBe(200);
    expectProblem(await list(shelf.user.user.id, '', { authorization: 'Bearer bad' }), 401);
  });
});

describe('GET /api/users/{id}/saved-items while the user saves and unsaves', () => {
  it('answers each page from one snapshot, with every filter', async () => {
    const user = await harness.user(`churner_${newId().slice(-8)}`);
    const live: string[] = [];
    for (let index = 0; index < 20; index++) live.push(await save(user, index % 2 === 0 ? 'recipe' : 'post'));
    const board = await collect(user, live.slice(0, 5));
    // Another client: the oldest item unsaved, then a new one saved, every other one into a collection,
    // so that the totals of every filter move.
    const churn = async () => {
      for (let round = 0; round < 30; round++) {
        expect((await harness.unsave(user, live.shift()!)).statusCode).toBe(200);
        const item = await save(user, round % 2 === 0 ? 'recipe' : 'post');
        live.push(item);
        if (round % 2 === 0) await harness.call('POST', `/api/collections/${board}/items`, user, { savedItemId: item });
      }
    };
    const queries = ['', '&standalone=true', '&content_type=recipe', '&content_type=post&standalone=true'];
    let reads = 0;
    const answers = await readWhileWriting(
      () => listed(user.user.id, `?limit=100${queries[reads++ % queries.length]}`),
      churn,
      2,
    );
    expect(pagesAtOdds(answers, (answer) => answer.savedItems)).toEqual([]);
  });
});

describe('saved items stay current', () => {
  it('shows the content’s new title and cover and its author’s new avatar', async () => {
    const reader = await harness.user('reader');
    const painter = await harness.user('painter');
    const recipe = await harness.content('recipe', painter.user.id, { title: 'Old title' });
    await harness.app.inject({
      method: 'POST',
      url: '/api/saved-items',
      payload: { contentType: 'recipe', contentId: recipe.id },
      headers: reader.headers,
    });

    await harness.publish(recipeUpdated, {
      ...recipe,
      title: 'New title',
      coverImageUrl: 'https://cdn.example.com/new.jpg',
      revision: 2,
    });
    await harness.publish(recipeUpdated, { ...recipe, title: 'Stale title', revision: 1 });
    await harness.publish(userUpdated, {
      ...painter.user,
      avatarUrl: 'https://cdn.example.com/painter.png',
      revision: 1,
    });

    const [item] = (await listed(reader.user.id)).savedItems;
    expect(item!.content).toEqual({
      title: 'New title',
      coverImageUrl: 'https://cdn.example.com/new.jpg',
      author: { id: painter.user.id, username: 'painter', avatarUrl: 'https://cdn.example.com/painter.png' },
    });
  });

  it('finds an author the users read model has not heard of yet', async () => {
    const reader = await harness.user('reader_two');
    const quiet = await harness.user('quiet_author', { quietly: true });
    const post = await harness.content('post', quiet.user.id);
    // Saved straight into the table: the author's event is still on its way.
    await harness.pool.query(
      "INSERT INTO saved_items (id, user_id, content_type, content_id) VALUES ($1, $2, 'post', $3)",
      [newId(), reader.user.id, post.id],
    );
    expect((await listed(reader.user.id)).savedItems[0]!.content.author).toEqual({
      id: quiet.user.id,
      username: 'quiet_author',
      avatarUrl: null,
    });
  });
});

describe('SAVED_ITEMS_VISIBILITY=owner', () => {
  let owners: CollectionsHarness;
  let ada: TestUser;
  let bob: TestUser;
  beforeAll(
    async () =>
      ({
        harness: owners,
        users: [ada, bob],
      } = await collectionsHarnessWith(['ada', 'bob'], { SAVED_ITEMS_VISIBILITY: 'owner' })),
  );
  afterAll(() => owners.close());

  const listAs = (user: TestUser | undefined, userId: string, query = '') =>
    owners.app.inject({ method: 'GET', url: `/api/users/${userId}/saved-items${query}`, headers: user?.headers ?? {} });

  it('shows a user their own saved items only', async () => {
    expect((await listAs(ada, ada.user.id)).statusCode).toBe(200);
    expectProblem(await listAs(undefined, ada.user.id), 401);
    expect(expectProblem(await listAs(bob, ada.user.id), 403).code).toBe('FORBIDDEN');
  });

  it('checks in the order 401, 400, 404, 403', async () => {
    expectProblem(await listAs(undefined, ada.user.id, '?content_type=bad'), 401);
    expectProblem(await listAs(bob, ada.user.id, '?content_type=bad'), 400);
    expectProblem(await listAs(bob, newId()), 404);
  });
});

describe('GET /api/users/{id}/collections', () => {
  let ada: TestUser;
  beforeAll(async () => {
    ada = await harness.user('ada');
  });

  it('lists a user’s live collections newest first, with pages', async () => {
    const owner = await harness.user('lister');
    const names = ['one', 'two', 'three', 'four', 'five'];
    const ids = [];
    for (const name of names) ids.push((await harness.created(owner, { name })).id);
    await harness.call('DELETE', `/api/collections/${ids[1]}`, owner);

    const first = (await harness.call('GET', `/api/users/${owner.user.id}/collections?limit=3`)).json();
    expect(first.collections.map((c: { name: string }) => c.name)).toEqual(['five', 'four', 'three']);
    expect(first.pagination).toEqual({ page: 1, limit: 3, total: 4, totalPages: 2, nextCursor: expect.any(String) });
    const second = (await harness.call('GET', `/api/users/${owner.user.id}/collections?limit=3&page=2`)).json();
    expect(second.collections.map((c: { name: string }) => c.name)).toEqual(['one']);
    const past = (await harness.call('GET', `/api/users/${owner.user.id}/collections?page=9`)).json();
    expect(past).toEqual({
      collections: [],
      pagination: { page: 9, limit: 12, total: 4, totalPages: 1, nextCursor: null },
    });
    expect(
      (await harness.call('GET', `/api/users/${owner.user.id}/collections?limit=500`)).json().pagination.limit,
    ).toBe(100);
  });

  it('answers each page from one snapshot while the user deletes and creates collections', async () => {
    const owner = await harness.user(`churning_${newId().slice(-8)}`);
    const live: string[] = [];
    for (let index = 0; index < 20; index++) live.push((await harness.created(owner, { name: `board ${index}` })).id);
    // Another client: the oldest collection deleted, then a new one created, over and over.
    const churn = async () => {
      for (let round = 0; round < 30; round++) {
        expect((await harness.call('DELETE', `/api/collections/${live.shift()}`, owner)).statusCode).toBe(200);
        live.push((await harness.created(owner, { name: `board ${20 + round}` })).id);
      }
    };
    const read = async () => (await harness.call('GET', `/api/users/${owner.user.id}/collections?limit=100`)).json();
    const answers = await readWhileWriting(read, churn, 2);
    expect(pagesAtOdds(answers, (answer) => answer.collections)).toEqual([]);
  });

  it('answers 404 for an unknown user, 400 for a bad page, and an empty list for a user registered a moment ago', async () => {
    expectProblem(await harness.call('GET', `/api/users/${newId()}/collections`), 404);
    expectProblem(await harness.call('GET', '/api/users/ada/collections'), 404);
    expectProblem(await harness.call('GET', `/api/users/${ada.user.id}/collections?page=0`), 400);
    expectProblem(await harness.call('GET', `/api/users/${ada.user.id}/collections?limit=1.5`), 400);
    const fresh = await harness.user('just_registered', { quietly: true });
    expect((await harness.call('GET', `/api/users/${fresh.user.id}/collections`)).json()).toEqual({
      collections: [],
      pagination: { page: 1, limit: 12, total: 0, totalPages: 0, nextCursor: null },
    });
  });
});
