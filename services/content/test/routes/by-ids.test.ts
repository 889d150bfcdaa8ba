import fc from 'fast-check';
import { newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarnessWith, expectProblem, type TestUser } from '../support.js';

/**
 * `GET /api/recipes?ids=…` and `GET /api/posts?ids=…` (docs/api.md §4): what reading each by its id would
 * answer 200 for, in the order asked, each once; the rest left out. At most 50 ids, all UUIDs.
 */
let harness: ContentHarness, ada: TestUser, bob: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada, bob],
    } = await contentHarnessWith(['Ada_ByIds', 'Bob_ByIds'])),
);
afterAll(() => harness.close());

const kinds = [
  { plural: 'recipes', body: { title: 'Velvia', cameraModel: 'X-T5', filmSimulation: 'Velvia' } },
  { plural: 'posts', body: { title: 'Harbour' } },
] as const;
type Plural = (typeof kinds)[number]['plural'];
const singular = { recipes: 'recipe', posts: 'post' } as const;

async function publish(plural: Plural, user: TestUser): Promise<{ id: string }> {
  const { body } = kinds.find((kind) => kind.plural === plural)!;
  const response = await harness.call('POST', `/api/${plural}`, user, body);
  expect(response.statusCode).toBe(201);
  return response.json()[singular[plural]];
}

async function remove(plural: Plural, id: string, user: TestUser): Promise<void> {
  expect((await harness.call('DELETE', `/api/${plural}/${id}`, user)).statusCode).toBe(200);
}

const byIds = (plural: Plural, ids: readonly string[], user?: TestUser) =>
  harness.call('GET', `/api/${plural}?ids=${ids.join(',')}`, user);

/** What `GET /api/{plural}/{id}` answers for each id, as `user`: the item, or undefined for a 404. */
async function readOneByOne(plural: Plural, ids: readonly string[], user?: TestUser): Promise<unknown[]> {
  const answers = [];
  for (const id of ids) {
    const response = await harness.call('GET', `/api/${plural}/${id}`, user);
    if (response.statusCode === 200) answers.push(response.json()[singular[plural]]);
    else expectProblem(response, 404);
  }
  return answers;
}

const MISSING = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

describe.each(kinds)('GET /api/$plural?ids=', ({ plural }) => {
  it('answers the items in the order asked, as each is read by its id', async () => {
    const [first, second, third] = [await publish(plural, ada), await publish(plural, bob), await publish(plural, ada)];
    const asked = [third!.id, first!.id, second!.id];
    const response = await byIds(plural, asked);
    expect(response.statusCode).toBe(200);
    const items = response.json()[plural];
    expect(items.map((item: { id: string }) => item.id)).toEqual(asked);
    expect(items).toEqual(await readOneByOne(plural, asked));
    expect(Object.keys(response.json())).toEqual([plural]);
  });

  it('leaves out what is missing or deleted, whoever asks, the author included', async () => {
    const [live, gone] = [await publish(plural, bob), await publish(plural, bob)];
    await remove(plural, gone!.id, bob);
    for (const user of [undefined, ada, bob]) {
      const response = await byIds(plural, [MISSING, gone!.id, live!.id, newId()], user);
      expect(response.statusCode).toBe(200);
      expect(response.json()[plural].map((item: { id: string }) => item.id)).toEqual([live!.id]);
    }
    const none = await byIds(plural, [gone!.id, MISSING]);
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ [plural]: [] });
  });

  it('answers an id asked twice, in any case, once, where it is first asked', async () => {
    const [a, b] = [await publish(plural, ada), await publish(plural, ada)];
    const response = await byIds(plural, [b!.id, a!.id.toUpperCase(), b!.id.toUpperCase(), a!.id]);
    expect(response.json()[plural].map((item: { id: string }) => item.id)).toEqual([b!.id, a!.id]);
  });

  it('takes the parameter repeated as well as comma-separated', async () => {
    const [a, b, c] = [await publish(plural, ada), await publish(plural, bob), await publish(plural, bob)];
    const response = await harness.call('GET', `/api/${plural}?ids=${c!.id},${a!.id}&ids=${b!.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()[plural].map((item: { id: string }) => item.id)).toEqual([c!.id, a!.id, b!.id]);
  });

  it('takes 50 ids, and refuses 51 with a 400 naming ids, duplicates counted', async () => {
    const one = await publish(plural, ada);
    const fifty = [one!.id, ...Array.from({ length: 49 }, () => newId())];
    const response = await byIds(plural, fifty);
    expect(response.statusCode).toBe(200);
    expect(response.json()[plural].map((item: { id: string }) => item.id)).toEqual([one!.id]);

    for (const ids of [[...fifty, newId()], Array.from({ length: 51 }, () => one!.id)]) {
      const problem = expectProblem(await byIds(plural, ids), 400);
      expect(problem.code).toBe('VALIDATION_ERROR');
      expect(problem.errors).toEqual([{ path: 'ids', message: 'must be at most 50 ids' }]);
    }
  });

  it.each([
    ['no ids', ''],
    ['an empty ids', '?ids='],
    ['an id that is not a UUID', `?ids=${MISSING},not-a-uuid`],
    ['an empty id between two', `?ids=${MISSING},,${MISSING}`],
    ['a trailing comma', `?ids=${MISSING},`],
    ['an id with spaces', `?ids=%20${MISSING}`],
    ['a UUID in braces', `?ids=%7B${MISSING}%7D`],
  ])('refuses %s with a 400 naming ids', async (_case, query) => {
    const problem = expectProblem(await harness.call('GET', `/api/${plural}${query}`), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors?.map((error) => error.path)).toEqual(['ids']);
  });

  it('leaves the reads of one item and of a user’s recipes as they were', async () => {
    const item = await publish(plural, ada);
    expect((await harness.call('GET', `/api/${plural}/${item!.id}`)).statusCode).toBe(200);
    const listing = await harness.call('GET', `/api/users/${ada.id}/recipes?limit=2&page=2`);
    expect(listing.statusCode).toBe(200);
    expect(listing.json().pagination).toMatchObject({ page: 2, limit: 2 });
  });
});

describe('GET /api/recipes?ids= as a caller', () => {
  it('shows the caller’s own favorite and repost, as reading one recipe does', async () => {
    const [favorite, plain] = [await publish('recipes', bob), await publish('recipes', bob)];
    expect((await harness.call('PUT', `/api/recipes/${favorite!.id}/favorite`, ada)).statusCode).toBe(200);
    expect((await harness.call('PUT', `/api/recipes/${plain!.id}/repost`, bob)).statusCode).toBe(200);
    const asked = [favorite!.id, plain!.id];
    for (const user of [undefined, ada, bob]) {
      const recipes = (await byIds('recipes', asked, user)).json().recipes;
      expect(recipes).toEqual(await readOneByOne('recipes', asked, user));
    }
    const asAda = (await byIds('recipes', asked, ada)).json().recipes;
    expect(asAda.map((recipe: { isFavorited: boolean; isReposted: boolean }) => recipe.isFavorited)).toEqual([
      true,
      false,
    ]);
  });
});

describe.each(kinds)('GET /api/$plural?ids=, over any ids', ({ plural }) => {
  it('answers exactly the live ones among any ids asked, in the order asked, each once', async () => {
    // A pool of items of both users, some deleted, and ids nothing has.
    const live = [await publish(plural, ada), await publish(plural, bob), await publish(plural, ada)];
    const deleted = [await publish(plural, bob), await publish(plural, ada)];
    for (const item of deleted) await remove(plural, item.id, item === deleted[0] ? bob : ada);
    const liveIds = new Set(live.map((item) => item.id));
    const candidates = [...live, ...deleted].map((item) => item.id).concat([MISSING, newId(), newId()]);
    const asked = fc.array(
      fc.tuple(fc.constantFrom(...candidates), fc.boolean()).map(([id, upper]) => (upper ? id.toUpperCase() : id)),
      { minLength: 1, maxLength: 50 },
    );
    const caller = fc.constantFrom(undefined, ada, bob);
    await fc.assert(
      fc.asyncProperty(asked, caller, async (ids, user) => {
        const response = await byIds(plural, ids, user);
        expect(response.statusCode).toBe(200);
        const answered = response.json()[plural].map((item: { id: string }) => item.id);
        const expected = [...new Set(ids.map((id) => id.toLowerCase()))].filter((id) => liveIds.has(id));
        expect(answered).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
