import { createEvent, userUpdated } from '@recipes/contracts';
import { pagesAtOdds, readWhileWriting } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness, expectProblem, type TestUser } from '../support.js';

let harness: ContentHarness;
let ada: TestUser;
let bob: TestUser;
/** Ada's recipes, newest first, as published. */
const adas: Array<{ id: string; title: string }> = [];

beforeAll(async () => {
  harness = await contentHarness();
  ada = await harness.knownUser('Ada_Lists', 'https://cdn.example.com/ada.png');
  bob = await harness.knownUser('Bob_Lists');
  for (let n = 1; n <= 15; n++) adas.unshift(await publish(ada, { title: `Recipe ${n}` }));
});
afterAll(() => harness.close());

async function publish(user: TestUser, body: Record<string, unknown> = {}) {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/recipes',
    payload: { title: 'A recipe', cameraModel: 'X-T5', filmSimulation: 'Acros', ...body },
    headers: harness.bearer(user),
  });
  expect(response.statusCode).toBe(201);
  return response.json().recipe;
}

const list = (path: string, user?: { token: string }) =>
  harness.app.inject({ method: 'GET', url: `/api/users/${path}`, headers: user ? harness.bearer(user) : {} });

async function listed(path: string, user?: { token: string }) {
  const response = await list(path, user);
  expect(response.statusCode).toBe(200);
  return response.json();
}

describe('GET /api/users/{id}/recipes', () => {
  it('finds the user by id or by username in any case, newest first, 12 at a time', async () => {
    const byId = await listed(`${ada.id}/recipes`);
    expect(byId.pagination).toEqual({ page: 1, limit: 12, total: 15, totalPages: 2, nextCursor: expect.any(String) });
    expect(byId.recipes.map((r: { id: string }) => r.id)).toEqual(adas.slice(0, 12).map((r) => r.id));
    expect(await listed('ada_lists/recipes')).toEqual(byId);
    expect(await listed('ADA_LISTS/recipes')).toEqual(byId);
  });

  it('answers every summary field, the author included', async () => {
    const { recipes } = await listed(`${ada.id}/recipes?limit=1`);
    expect(recipes[0]).toEqual({
      id: adas[0]!.id,
      title: 'Recipe 15',
      description: '',
      coverImageUrl: null,
      cameraModel: 'X-T5',
      filmSimulation: 'Acros',
      favoriteCount: 0,
      commentCount: 0,
      repostCount: 0,
      isFavorited: false,
      isReposted: false,
      createdAt: expect.any(String),
      author: { id: ada.id, username: 'Ada_Lists', avatarUrl: 'https://cdn.example.com/ada.png' },
    });
  });

  it('pages: a later page, a page past the end, and a limit above 100 clamped', async () => {
    const second = await listed(`${ada.id}/recipes?page=2`);
    expect(second.recipes.map((r: { id: string }) => r.id)).toEqual(adas.slice(12).map((r) => r.id));
    expect(await listed(`${ada.id}/recipes?page=9&limit=5`)).toEqual({
      recipes: [],
      pagination: { page: 9, limit: 5, total: 15, totalPages: 3, nextCursor: null },
    });
    expect((await listed(`${ada.id}/recipes?limit=1000`)).pagination).toEqual({
      page: 1,
      limit: 100,
      total: 15,
      totalPages: 1,
      nextCursor: null,
    });
    expect(await listed(`${bob.id}/recipes`)).toEqual({
      recipes: [],
      pagination: { page: 1, limit: 12, total: 0, totalPages: 0, nextCursor: null },
    });
  });

  it('orders recipes created in the same millisecond by id, descending', async () => {
    const carol = await harness.knownUser('Carol_Lists');
    const made = [await publish(carol), await publish(carol), await publish(carol)];
    await harness.pool.query("UPDATE recipes SET created_at = '2026-11-22T10:00:00.000Z' WHERE author_id = $1", [
      carol.id,
    ]);
    const { recipes } = await listed(`${carol.id}/recipes`);
    expect(recipes.map((r: { id: string }) => r.id)).toEqual(
      made
        .map((r) => r.id)
        .sort()
        .reverse(),
    );
  });

  it('leaves deleted recipes out of the list and the total', async () => {
    const dave = await harness.knownUser('Dave_Lists');
    const kept = await publish(dave);
    const gone = await publish(dave);
    await harness.app.inject({ method: 'DELETE', url: `/api/recipes/${gone.id}`, headers: harness.bearer(dave) });
    const { recipes, pagination } = await listed(`${dave.id}/recipes`);
    expect(recipes.map((r: { id: string }) => r.id)).toEqual([kept.id]);
    expect(pagination.total).toBe(1);
  });

  it('answers each page from one snapshot while the author deletes and publishes recipes', async () => {
    const erin = await harness.knownUser('Erin_Lists');
    const live: string[] = [];
    for (let i = 0; i < 20; i++) live.push((await publish(erin)).id);
    // Another client: one recipe deleted, then one published, over and over; the total moves with each.
    const churn = async () => {
      for (let round = 0; round < 30; round++) {
        const deleted = await harness.app.inject({
          method: 'DELETE',
          url: `/api/recipes/${live.shift()}`,
          headers: harness.bearer(erin),
        });
        expect(deleted.statusCode).toBe(200);
        live.push((await publish(erin)).id);
      }
    };
    const answers = await readWhileWriting(() => listed(`${erin.id}/recipes?limit=100`), churn, 2);
    expect(pagesAtOdds(answers, (answer) => answer.recipes)).toEqual([]);
  });

  it('shows the caller’s favorites and reposts with a token, and false without', async () => {
    const [first, second] = adas;
    for (const [method, url] of [
      ['PUT', `/api/recipes/${first!.id}/favorite`],
      ['PUT', `/api/recipes/${second!.id}/repost`],
      ['PUT', `/api/recipes/${second!.id}/favorite`],
      ['DELETE', `/api/recipes/${second!.id}/favorite`],
    ] as const) {
      expect((await harness.app.inject({ method, url, headers: harness.bearer(bob) })).statusCode).toBe(200);
    }
    const pick = (recipes: any[]) =>
      recipes.slice(0, 2).map(({ isFavorited, isReposted, favoriteCount, repostCount }) => ({
        isFavorited,
        isReposted,
        favoriteCount,
        repostCount,
      }));
    expect(pick((await listed(`${ada.id}/recipes`, bob)).recipes)).toEqual([
      { isFavorited: true, isReposted: false, favoriteCount: 1, repostCount: 0 },
      { isFavorited: false, isReposted: true, favoriteCount: 0, repostCount: 1 },
    ]);
    for (const viewer of [undefined, ada]) {
      expect(pick((await listed(`${ada.id}/recipes`, viewer)).recipes)).toEqual([
        { isFavorited: false, isReposted: false, favoriteCount: 1, repostCount: 0 },
        { isFavorited: false, isReposted: false, favoriteCount: 0, repostCount: 1 },
      ]);
    }
  });

  it('uses the recipe’s own cover, else its first image, else null', async () => {
    const erin = await harness.knownUser('Erin_Lists');
    await publish(erin, {
      coverImageUrl: 'https://cdn.example.com/own.jpg',
      imageUrls: ['https://cdn.example.com/img.jpg'],
    });
    await publish(erin, { imageUrls: ['https://cdn.example.com/first.jpg', 'https://cdn.example.com/second.jpg'] });
    await publish(erin);
    const { recipes } = await listed(`${erin.id}/recipes`);
    expect(recipes.map((r: { coverImageUrl: string | null }) => r.coverImageUrl)).toEqual([
      null,
      'https://cdn.example.com/first.jpg',
      'https://cdn.example.com/own.jpg',
    ]);
  });

  it('shows an author’s new avatar once their user.updated arrives', async () => {
    const frank = await harness.knownUser('Frank_Lists');
    await publish(frank);
    await harness.deliver(
      createEvent(
        userUpdated,
        { id: frank.id, username: 'Frank_Lists', avatarUrl: 'https://cdn.example.com/new.png', revision: 1 },
        { producer: 'users', correlationId: 't' },
      ),
    );
    expect((await listed(`${frank.id}/recipes`)).recipes[0].author.avatarUrl).toBe('https://cdn.example.com/new.png');
  });

  it('finds a user registered a moment ago through the users service', async () => {
    harness.newUser('Fresh_Lister');
    expect(await listed('fresh_lister/recipes')).toEqual({
      recipes: [],
      pagination: { page: 1, limit: 12, total: 0, totalPages: 0, nextCursor: null },
    });
  });

  it.each(['page=0', 'limit=-1', 'limit=abc', 'page=1.5', 'limit=0', 'page=', 'limit=1e3', 'page=99999999999'])(
    'answers %s with 400',
    async (query) => {
      expect(expectProblem(await list(`${ada.id}/recipes?${query}`), 400).code).toBe('VALIDATION_ERROR');
    },
  );

  it.each([
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b',
    'nobody_here',
    'me',
    'ab',
    'not a name',
    '%00',
    'x'.repeat(100),
    "x' OR '1'='1",
  ])('answers 404 for the user %j', async (id) => {
    expect(expectProblem(await list(`${encodeURIComponent(id)}/recipes`), 404).code).toBe('NOT_FOUND');
  });

  it('checks the token first, then the query, then the user', async () => {
    expectProblem(await list(`${ada.id}/recipes`, { token: 'garbage' }), 401);
    expectProblem(await list('nobody_here/recipes?page=0', { token: 'garbage' }), 401);
    expectProblem(await list('nobody_here/recipes?page=0'), 400);
    expectProblem(await list('not a name/recipes?limit=abc'.replaceAll(' ', '%20')), 400);
  });
});
