import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness, expectProblem, outboxEvents, type TestUser } from '../support.js';

let harness: ContentHarness;
let ada: TestUser;
let bob: TestUser;
beforeAll(async () => {
  harness = await contentHarness();
  ada = await harness.knownUser('Ada_Recipes', 'https://cdn.example.com/ada.png');
  bob = await harness.knownUser('Bob_Recipes');
});
afterAll(() => harness.close());

const draft = { title: 'Kodachrome 64', cameraModel: 'X-T5', filmSimulation: 'Classic Chrome' };
const MISSING = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

async function publish(user: TestUser, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await harness.call('POST', '/api/recipes', user, { ...draft, ...body }, headers);
  expect(response.statusCode).toBe(201);
  return response.json().recipe;
}

describe('POST /api/recipes', () => {
  it('publishes a recipe and answers with its summary', async () => {
    const recipe = await publish(ada, {
      description: 'Warm and punchy',
      coverImageUrl: 'https://cdn.example.com/cover.jpg',
      imageUrls: ['https://cdn.example.com/1.jpg'],
    });
    expect(recipe).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      title: 'Kodachrome 64',
      description: 'Warm and punchy',
      coverImageUrl: 'https://cdn.example.com/cover.jpg',
      cameraModel: 'X-T5',
      filmSimulation: 'Classic Chrome',
      favoriteCount: 0,
      commentCount: 0,
      repostCount: 0,
      isFavorited: false,
      isReposted: false,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      author: { id: ada.id, username: 'Ada_Recipes', avatarUrl: 'https://cdn.example.com/ada.png' },
    });
  });

  it('defaults the optional fields and trims the text', async () => {
    const recipe = await publish(ada, { title: '  Velvia  ', cameraModel: ' X100V ' });
    expect(recipe).toMatchObject({ title: 'Velvia', description: '', cameraModel: 'X100V', coverImageUrl: null });
  });

  it('uses the first image as the cover when there is none, in the order given', async () => {
    const recipe = await publish(ada, {
      imageUrls: ['https://cdn.example.com/b.jpg', 'https://cdn.example.com/a.jpg'],
    });
    expect(recipe.coverImageUrl).toBe('https://cdn.example.com/b.jpg');
    const { rows } = await harness.pool.query(
      'SELECT position, url FROM recipe_images WHERE recipe_id = $1 ORDER BY position',
      [recipe.id],
    );
    expect(rows).toEqual([
      { position: 0, url: 'https://cdn.example.com/b.jpg' },
      { position: 1, url: 'https://cdn.example.com/a.jpg' },
    ]);
  });

  it('accepts every field at its limit, counting characters rather than bytes', async () => {
    const recipe = await publish(ada, {
      title: '📷'.repeat(200),
      description: 'line one\n\tline two'.padEnd(5000, 'é'),
      cameraModel: 'c'.repeat(100),
      filmSimulation: 'f'.repeat(100),
      coverImageUrl: `https://x.com/${'a'.repeat(2048 - 14)}`,
      imageUrls: Array.from({ length: 20 }, (_, i) => `https://cdn.example.com/${i}.jpg`),
      taggedUsernames: Array.from({ length: 20 }, (_, i) => `nobody_${i}`),
    });
    expect([...recipe.title]).toHaveLength(200);
  });

  it.each([
    ['no title', { title: undefined }],
    ['an empty title', { title: '' }],
    ['a blank title', { title: '   ' }],
    ['a title of 201 characters', { title: 'x'.repeat(201) }],
    ['a title with a line break', { title: 'two\nlines' }],
    ['a title with NUL', { title: 'a\u0000b' }],
    ['a numeric title', { title: 42 }],
    ['a description of 5001 characters', { description: 'x'.repeat(5001) }],
    ['a description with NUL', { description: 'a\u0000b' }],
    ['a null description', { description: null }],
    ['no camera model', { cameraModel: undefined }],
    ['a camera model of 101 characters', { cameraModel: 'x'.repeat(101) }],
    ['an empty film simulation', { filmSimulation: '' }],
    ['an ftp cover', { coverImageUrl: 'ftp://cdn.example.com/a.jpg' }],
    ['a javascript: cover', { coverImageUrl: 'javascript:alert(1)' }],
    ['a cover with NUL', { coverImageUrl: 'https://cdn.example.com/a\u0000.jpg' }],
    ['a cover over 2048 characters', { coverImageUrl: `https://x.com/${'a'.repeat(2048)}` }],
    ['21 images', { imageUrls: Array.from({ length: 21 }, (_, i) => `https://cdn.example.com/${i}.jpg`) }],
    ['an image that is not a URL', { imageUrls: ['not a url'] }],
    ['images that are not a list', { imageUrls: 'https://cdn.example.com/a.jpg' }],
    ['21 tagged names', { taggedUsernames: Array.from({ length: 21 }, (_, i) => `user_${i}`) }],
    ['a tagged name that is not a string', { taggedUsernames: [42] }],
  ])('rejects %s with 400 and writes nothing', async (_case, override) => {
    const before = await outboxEvents(harness.pool);
    const problem = expectProblem(await harness.call('POST', '/api/recipes', ada, { ...draft, ...override }), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors?.length).toBeGreaterThan(0);
    expect(await outboxEvents(harness.pool)).toEqual(before);
  });

  it('needs a valid token, checked before the body', async () => {
    expectProblem(await harness.call('POST', '/api/recipes', undefined, draft), 401);
    expectProblem(await harness.call('POST', '/api/recipes', { token: 'not.a.token' }, { title: 5 }), 401);
    expectProblem(await harness.call('POST', '/api/recipes', undefined, { title: 5 }), 401);
  });

  it('answers a body that is not JSON, too large or of another type with problems', async () => {
    expectProblem(
      await harness.call('POST', '/api/recipes', ada, '{"title":', { 'content-type': 'application/json' }),
      400,
    );
    expectProblem(await harness.call('POST', '/api/recipes', ada, { ...draft, description: 'x'.repeat(70_000) }), 413);
    expectProblem(await harness.call('POST', '/api/recipes', ada, 'title=x', { 'content-type': 'text/plain' }), 415);
  });

  it('writes recipe.created with the request id, in the same transaction', async () => {
    const recipe = await publish(
      ada,
      { imageUrls: ['https://cdn.example.com/first.jpg'] },
      { 'x-request-id': 'publish-1' },
    );
    const [event] = (await outboxEvents(harness.pool, 'recipe.created')).filter((e) => e.data.id === recipe.id);
    expect(event).toMatchObject({
      producer: 'content',
      correlationId: 'publish-1',
      data: {
        id: recipe.id,
        authorId: ada.id,
        title: 'Kodachrome 64',
        coverImageUrl: 'https://cdn.example.com/first.jpg',
        deleted: false,
        revision: 0,
        createdAt: recipe.createdAt,
      },
    });
  });

  it('tags each existing user once, whatever the case, never the author, ignoring unknown names', async () => {
    const carol = await harness.knownUser('Carol_Tagged');
    const recipe = await publish(
      ada,
      {
        taggedUsernames: [
          'carol_tagged',
          'CAROL_TAGGED',
          'bob_recipes',
          'ada_recipes',
          'nobody_at_all',
          'not a name!',
          '',
        ],
      },
      { 'x-request-id': 'tagging-1' },
    );
    const tags = (await outboxEvents(harness.pool, 'content.user.tagged')).filter(
      (e) => e.data.contentId === recipe.id,
    );
    expect(tags.map((e) => e.data.taggedUserId).sort()).toEqual([bob.id, carol.id].sort());
    for (const tag of tags) {
      expect(tag).toMatchObject({
        correlationId: 'tagging-1',
        data: { contentType: 'recipe', contentId: recipe.id, actorId: ada.id, createdAt: recipe.createdAt },
      });
    }
    const { rows } = await harness.pool.query('SELECT user_id FROM recipe_tags WHERE recipe_id = $1', [recipe.id]);
    expect(rows.map((row) => row.user_id).sort()).toEqual([bob.id, carol.id].sort());
  });

  it('knows a caller and a tagged user registered a moment ago, through the users service', async () => {
    const fresh = harness.newUser('Fresh_Author');
    const tagged = harness.newUser('Fresh_Tagged');
    const recipe = await publish(fresh, { taggedUsernames: ['fresh_tagged'] }, { 'x-request-id': 'fresh-1' });
    expect(recipe.author).toEqual({ id: fresh.id, username: 'Fresh_Author', avatarUrl: null });
    const tags = (await outboxEvents(harness.pool, 'content.user.tagged')).filter(
      (e) => e.data.contentId === recipe.id,
    );
    expect(tags.map((e) => e.data.taggedUserId)).toEqual([tagged.id]);

    // Remembered: the next recipe needs no look-up.
    const lookups = harness.usersService.requests.length;
    await publish(fresh, { taggedUsernames: ['fresh_tagged'] });
    expect(harness.usersService.requests.length).toBe(lookups);
  });

  it('refuses a well-signed token of a user that does not exist with 401', async () => {
    const problem = expectProblem(
      await harness.call('POST', '/api/recipes', harness.stranger('Never_Registered'), draft),
      401,
    );
    expect(problem.code).toBe('UNAUTHORIZED');
  });

  it('answers 503 when a caller is unknown and the users service cannot be asked', async () => {
    const unknown = harness.newUser('Unreachable_Author');
    harness.usersService.setDown(true);
    try {
      const problem = expectProblem(await harness.call('POST', '/api/recipes', unknown, draft), 503);
      expect(problem.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      harness.usersService.setDown(false);
    }
  });
});

describe('GET /api/recipes/{id}', () => {
  it('answers with the summary; favorited and reposted are the caller’s', async () => {
    const recipe = await publish(ada);
    expect((await harness.call('PUT', `/api/recipes/${recipe.id}/favorite`, bob)).statusCode).toBe(200);

    const anonymous = await harness.call('GET', `/api/recipes/${recipe.id}`);
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json().recipe).toEqual({ ...recipe, favoriteCount: 1 });
    expect((await harness.call('GET', `/api/recipes/${recipe.id}`, bob)).json().recipe).toMatchObject({
      isFavorited: true,
      isReposted: false,
    });
    expect((await harness.call('GET', `/api/recipes/${recipe.id}`, ada)).json().recipe).toMatchObject({
      isFavorited: false,
    });
  });

  it('refuses a bad token even though none is needed', async () => {
    const recipe = await publish(ada);
    expectProblem(await harness.call('GET', `/api/recipes/${recipe.id}`, { token: 'garbage' }), 401);
  });

  it.each([MISSING, 'not-a-uuid', '123', "x' OR '1'='1", '%00'])('answers 404 for %j', async (id) => {
    expect(expectProblem(await harness.call('GET', `/api/recipes/${encodeURIComponent(id)}`), 404).code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('DELETE /api/recipes/{id}', () => {
  it('lets the author delete, softly: the recipe is then not found, keeps no text, and the deletion is told', async () => {
    const recipe = await publish(ada, {
      title: `For @${bob.username}`,
      description: 'Words that may name anyone',
      coverImageUrl: 'https://cdn.example.com/cover.jpg',
      imageUrls: ['https://cdn.example.com/1.jpg', 'https://cdn.example.com/2.jpg'],
    });
    const response = await harness.call('DELETE', `/api/recipes/${recipe.id}`, ada, undefined, {
      'x-request-id': 'delete-1',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Recipe deleted' });

    expectProblem(await harness.call('GET', `/api/recipes/${recipe.id}`), 404);
    expectProblem(await harness.call('DELETE', `/api/recipes/${recipe.id}`, ada), 404);
    expectProblem(await harness.call('PUT', `/api/recipes/${recipe.id}/favorite`, bob), 404);
    // The row stays for the events, counts and reactions; no word of it does (migrations/005).
    const { rows } = await harness.pool.query(
      `SELECT deleted_at IS NOT NULL AS deleted, title, description, camera_model, film_simulation, cover_image_url,
              (SELECT count(*)::int FROM recipe_images WHERE recipe_id = recipes.id) AS images
         FROM recipes WHERE id = $1`,
      [recipe.id],
    );
    expect(rows).toEqual([
      {
        deleted: true,
        title: '',
        description: '',
        camera_model: '',
        film_simulation: '',
        cover_image_url: null,
        images: 0,
      },
    ]);

    const events = (await outboxEvents(harness.pool, 'recipe.deleted')).filter((e) => e.data.id === recipe.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      correlationId: 'delete-1',
      data: { id: recipe.id, authorId: ada.id, title: '', coverImageUrl: null, deleted: true, revision: 1 },
    });
    await expect(
      harness.pool.query("UPDATE recipes SET title = 'Back' WHERE id = $1", [recipe.id]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'recipes_deleted_keep_no_text' });
  });

  it('forbids anyone else, and changes nothing', async () => {
    const recipe = await publish(ada);
    expect(expectProblem(await harness.call('DELETE', `/api/recipes/${recipe.id}`, bob), 403).code).toBe('FORBIDDEN');
    expect((await harness.call('GET', `/api/recipes/${recipe.id}`)).statusCode).toBe(200);
    expect((await outboxEvents(harness.pool, 'recipe.deleted')).filter((e) => e.data.id === recipe.id)).toEqual([]);
  });

  it('checks the token, then existence, then ownership', async () => {
    const recipe = await publish(ada);
    expectProblem(await harness.call('DELETE', `/api/recipes/${recipe.id}`), 401);
    expectProblem(await harness.call('DELETE', `/api/recipes/${MISSING}`, bob), 404);
    expectProblem(await harness.call('DELETE', '/api/recipes/not-a-uuid', bob), 404);
  });
});

describe.each([
  { path: 'favorite', flag: 'favorited', count: 'favoriteCount', column: 'isFavorited' },
  { path: 'repost', flag: 'reposted', count: 'repostCount', column: 'isReposted' },
])('PUT and DELETE /api/recipes/{id}/$path', ({ path, flag, count, column }) => {
  it('adds and takes back, idempotently, answering with the new count', async () => {
    const recipe = await publish(ada);
    const url = `/api/recipes/${recipe.id}/${path}`;
    const call = async (method: string, user: TestUser) => {
      const response = await harness.call(method, url, user);
      expect(response.statusCode).toBe(200);
      return response.json();
    };
    expect(await call('PUT', bob)).toEqual({ [flag]: true, [count]: 1 });
    expect(await call('PUT', bob)).toEqual({ [flag]: true, [count]: 1 });
    expect(await call('PUT', ada)).toEqual({ [flag]: true, [count]: 2 });
    expect((await harness.call('GET', `/api/recipes/${recipe.id}`, bob)).json().recipe).toMatchObject({
      [column]: true,
      [count]: 2,
    });
    expect(await call('DELETE', bob)).toEqual({ [flag]: false, [count]: 1 });
    expect(await call('DELETE', bob)).toEqual({ [flag]: false, [count]: 1 });
    expect((await harness.call('GET', `/api/recipes/${recipe.id}`, bob)).json().recipe).toMatchObject({
      [column]: false,
      [count]: 1,
    });
  });

  it('keeps the count true under concurrent changes', async () => {
    const recipe = await publish(ada);
    const url = `/api/recipes/${recipe.id}/${path}`;
    const fans = await Promise.all(Array.from({ length: 8 }, (_, i) => harness.knownUser(`fan_${path}_${i}`)));
    await Promise.all([...fans, ...fans].map((fan) => harness.call('PUT', url, fan)));
    await Promise.all(
      fans.slice(0, 3).flatMap((fan) => [harness.call('DELETE', url, fan), harness.call('DELETE', url, fan)]),
    );
    expect((await harness.call('GET', `/api/recipes/${recipe.id}`)).json().recipe[count]).toBe(5);
  });

  it('needs a token, and a recipe that exists', async () => {
    const recipe = await publish(ada);
    expectProblem(await harness.call('PUT', `/api/recipes/${recipe.id}/${path}`), 401);
    expectProblem(await harness.call('DELETE', `/api/recipes/${recipe.id}/${path}`, { token: 'garbage' }), 401);
    expectProblem(await harness.call('PUT', `/api/recipes/${MISSING}/${path}`, bob), 404);
    expectProblem(await harness.call('DELETE', `/api/recipes/nope/${path}`, bob), 404);
  });
});
