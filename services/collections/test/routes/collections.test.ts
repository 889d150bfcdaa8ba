import { newId } from '@recipes/contracts';
import { eventually, pagesAtOdds, readWhileWriting } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CollectionsHarness,
  collectionsHarnessWith,
  expectProblem,
  expectUnauthorized,
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

async function savedItem(user: TestUser): Promise<string> {
  const recipe = await harness.content('recipe', bob.user.id);
  const response = await harness.call('POST', '/api/saved-items', user, {
    contentType: 'recipe',
    contentId: recipe.id,
  });
  return response.json().savedItem.id;
}

const addItem = (user: TestUser | undefined, collectionId: string, payload: unknown) =>
  harness.call('POST', `/api/collections/${collectionId}/items`, user, payload);
const removeItem = (user: TestUser | undefined, collectionId: string, payload: unknown) =>
  harness.call('DELETE', `/api/collections/${collectionId}/items`, user, payload);
const getCollection = (id: string) => harness.call('GET', `/api/collections/${id}`);

async function outboxEvents(collectionId: string) {
  const { rows } = await harness.pool.query(
    "SELECT payload FROM outbox WHERE payload->'data'->>'id' = $1 ORDER BY created_at",
    [collectionId],
  );
  return rows.map((row) => row.payload);
}

describe('POST /api/collections', () => {
  it('creates a collection owned by the caller and tells the comments service in the same transaction', async () => {
    const response = await harness.call(
      'POST',
      '/api/collections',
      ada,
      { name: 'Film looks', description: 'Warm tones' },
      { 'x-request-id': 'create-1' },
    );
    expect(response.statusCode).toBe(201);
    const { collection } = response.json();
    expect(collection).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Film looks',
      description: 'Warm tones',
      owner: { id: ada.user.id, username: 'ada', avatarUrl: null },
      itemCount: 0,
      createdAt: expect.stringMatching(ISO_MILLIS),
    });
    expect(await outboxEvents(collection.id)).toEqual([
      expect.objectContaining({
        type: 'collection.created',
        version: 1,
        producer: 'collections',
        correlationId: 'create-1',
        data: {
          id: collection.id,
          ownerId: ada.user.id,
          name: 'Film looks',
          deleted: false,
          revision: 0,
          createdAt: collection.createdAt,
        },
      }),
    ]);
  });

  it('refuses a well-signed token of an account nobody knows with 401, and creates nothing', async () => {
    const ghost = harness.stranger('Ghost_Owner');
    // Only the users service signs tokens: one of an account nobody has is of an account that was deleted.
    expectUnauthorized(await harness.call('POST', '/api/collections', ghost, { name: 'Haunted' }), 'ACCOUNT_DELETED');
    const { rows } = await harness.pool.query('SELECT 1 FROM collections WHERE owner_id = $1', [ghost.user.id]);
    expect(rows).toEqual([]);
  });

  it('defaults the description to empty and trims both fields', async () => {
    expect(await harness.created(ada, { name: '  Trimmed  ' })).toMatchObject({ name: 'Trimmed', description: '' });
    expect(await harness.created(ada, { name: '🎞'.repeat(100), description: '' })).toMatchObject({
      name: '🎞'.repeat(100),
    });
    expect(await harness.created(ada, { name: 'Lines', description: 'one\r\ntwo\tthree' })).toMatchObject({
      description: 'one\r\ntwo\tthree',
    });
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name over 100 characters', { name: 'x'.repeat(101) }],
    ['a description over 500 characters', { name: 'ok', description: 'x'.repeat(501) }],
    ['a numeric name', { name: 42 }],
    ['a null description', { name: 'ok', description: null }],
    ['a NUL in the name', { name: 'a\u0000b' }],
    ['a line break in the name', { name: 'a\nb' }],
    ['a NUL in the description', { name: 'ok', description: 'x\u0000' }],
  ])('answers 400 for %s and writes nothing', async (_case, body) => {
    const { rows: before } = await harness.pool.query('SELECT count(*)::int AS n FROM outbox');
    expect(expectProblem(await harness.call('POST', '/api/collections', ada, body), 400).code).toBe('VALIDATION_ERROR');
    const { rows: after } = await harness.pool.query('SELECT count(*)::int AS n FROM outbox');
    expect(after[0].n).toBe(before[0].n);
  });

  it('needs a token', async () => {
    expectProblem(await harness.call('POST', '/api/collections', undefined, { name: 'x' }), 401);
  });
});

describe('GET and DELETE /api/collections/{id}', () => {
  it('shows a collection to anyone, and 404 for unknown or malformed ids', async () => {
    const collection = await harness.created(ada);
    const response = await getCollection(collection.id);
    expect(response.statusCode).toBe(200);
    expect(response.json().collection).toEqual({
      ...collection,
      owner: { id: ada.user.id, username: 'ada', avatarUrl: null },
    });
    expectProblem(await getCollection(newId()), 404);
    expectProblem(await getCollection('42'), 404);
    expectProblem(
      await harness.call('GET', `/api/collections/${collection.id}`, undefined, undefined, {
        authorization: 'Bearer nonsense',
      }),
      401,
    );
  });

  it('deletes softly for the owner: 404 afterwards, no text kept, its items stay saved and become standalone', async () => {
    const [only, shared] = [await savedItem(ada), await savedItem(ada)];
    const doomed = await harness.created(ada, { name: 'Words that may name anyone', description: 'Others too' });
    const other = await harness.created(ada);
    for (const id of [only, shared]) expect((await addItem(ada, doomed.id, { savedItemId: id })).statusCode).toBe(201);
    expect((await addItem(ada, other.id, { savedItemId: shared })).statusCode).toBe(201);

    const response = await harness.call('DELETE', `/api/collections/${doomed.id}`, ada, undefined, {
      'x-request-id': 'delete-1',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Collection deleted' });
    expectProblem(await getCollection(doomed.id), 404);
    expectProblem(await harness.call('DELETE', `/api/collections/${doomed.id}`, ada), 404);

    const standalone = (
      await harness.call('GET', `/api/users/${ada.user.id}/saved-items?standalone=true&limit=100`)
    ).json();
    const ids = standalone.savedItems.map((item: { id: string }) => item.id);
    expect(ids).toContain(only);
    expect(ids).not.toContain(shared);
    expect((await getCollection(other.id)).json().collection.itemCount).toBe(1);

    const [, deleted] = await outboxEvents(doomed.id);
    expect(deleted).toMatchObject({
      type: 'collection.deleted',
      correlationId: 'delete-1',
      data: { id: doomed.id, name: '', deleted: true, revision: 1 },
    });
    // The row stays for the events and the comments' 404; no word of it does (migrations/006).
    const { rows } = await harness.pool.query('SELECT name, description FROM collections WHERE id = $1', [doomed.id]);
    expect(rows).toEqual([{ name: '', description: '' }]);
    await expect(
      harness.pool.query("UPDATE collections SET name = 'Back' WHERE id = $1", [doomed.id]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'collections_deleted_keep_no_text' });
    const { kept, counted } = await totalsAndRecount(harness.pool);
    expect(kept).toEqual(counted);
  });

  it('answers 401 without a token and 403 for another user, and then deletes nothing', async () => {
    const collection = await harness.created(ada);
    expectProblem(await harness.call('DELETE', `/api/collections/${collection.id}`), 401);
    expect(expectProblem(await harness.call('DELETE', `/api/collections/${collection.id}`, bob), 403).code).toBe(
      'FORBIDDEN',
    );
    expectProblem(await harness.call('DELETE', `/api/collections/${newId()}`, bob), 404);
    expect((await getCollection(collection.id)).statusCode).toBe(200);
  });
});

describe('POST /api/collections/{id}/items', () => {
  it('adds the owner’s saved item: 201 with the message, and the item counts', async () => {
    const collection = await harness.created(ada);
    const item = await savedItem(ada);
    const response = await addItem(ada, collection.id, { savedItemId: item });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ message: 'Item added to collection' });
    expect((await getCollection(collection.id)).json().collection.itemCount).toBe(1);
  });

  it('lets a saved item be in several collections, once in each (409 the second time)', async () => {
    const [first, second] = [await harness.created(ada), await harness.created(ada)];
    const item = await savedItem(ada);
    expect((await addItem(ada, first.id, { savedItemId: item })).statusCode).toBe(201);
    expect((await addItem(ada, second.id, { savedItemId: item })).statusCode).toBe(201);
    expect(expectProblem(await addItem(ada, first.id, { savedItemId: item }), 409).code).toBe('CONFLICT');
    expect((await getCollection(first.id)).json().collection.itemCount).toBe(1);
  });

  it('answers 404 for a saved item that is unknown or someone else’s', async () => {
    const collection = await harness.created(ada);
    expectProblem(await addItem(ada, collection.id, { savedItemId: newId() }), 404);
    expectProblem(await addItem(ada, collection.id, { savedItemId: await savedItem(bob) }), 404);
  });

  it.each([[{}], [{ savedItemId: 'abc' }], [{ savedItemId: 7 }], [{ savedItemId: null }]])(
    'answers 400 for the body %j',
    async (body) => {
      const collection = await harness.created(ada);
      expect(expectProblem(await addItem(ada, collection.id, body), 400).code).toBe('VALIDATION_ERROR');
    },
  );

  it('checks in the order 401, 400, 404, 403, 409', async () => {
    const collection = await harness.created(ada);
    const item = await savedItem(ada);
    await addItem(ada, collection.id, { savedItemId: item });
    const deleted = await harness.created(ada);
    await harness.call('DELETE', `/api/collections/${deleted.id}`, ada);

    expectProblem(await addItem(undefined, collection.id, { savedItemId: 'bad' }), 401);
    expectProblem(await addItem(bob, newId(), { savedItemId: 'bad' }), 400);
    expectProblem(await addItem(bob, newId(), { savedItemId: item }), 404);
    expectProblem(await addItem(ada, deleted.id, { savedItemId: item }), 404);
    // Bob may not touch Ada's collection, whatever the item: even one already in it.
    expectProblem(await addItem(bob, collection.id, { savedItemId: item }), 403);
    expectProblem(await addItem(bob, collection.id, { savedItemId: await savedItem(bob) }), 403);
    expectProblem(await addItem(ada, collection.id, { savedItemId: item }), 409);
  });
});

describe('DELETE /api/collections/{id}/items', () => {
  it('removes the item from the collection and from the owner’s saved items, so from every collection', async () => {
    const [first, second] = [await harness.created(ada), await harness.created(ada)];
    const item = await savedItem(ada);
    await addItem(ada, first.id, { savedItemId: item });
    await addItem(ada, second.id, { savedItemId: item });

    const response = await removeItem(ada, first.id, { savedItemId: item });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Item removed from collection' });
    expect((await getCollection(first.id)).json().collection.itemCount).toBe(0);
    expect((await getCollection(second.id)).json().collection.itemCount).toBe(0);
    const { rows } = await harness.pool.query('SELECT 1 FROM saved_items WHERE id = $1', [item]);
    expect(rows).toEqual([]);
    const { kept, counted } = await totalsAndRecount(harness.pool);
    expect(kept).toEqual(counted);
  });

  it('answers 404 for an item not in this collection, and leaves it saved', async () => {
    const collection = await harness.created(ada);
    const item = await savedItem(ada);
    expect(expectProblem(await removeItem(ada, collection.id, { savedItemId: item }), 404).code).toBe('NOT_FOUND');
    expectProblem(await removeItem(ada, collection.id, { savedItemId: newId() }), 404);
    const { rows } = await harness.pool.query('SELECT 1 FROM saved_items WHERE id = $1', [item]);
    expect(rows).toHaveLength(1);
  });

  it('answers 401, 400, 404 and 403 as adding does', async () => {
    const collection = await harness.created(ada);
    const item = await savedItem(ada);
    await addItem(ada, collection.id, { savedItemId: item });
    expectProblem(await removeItem(undefined, collection.id, { savedItemId: item }), 401);
    expectProblem(await removeItem(ada, collection.id, {}), 400);
    expectProblem(await removeItem(ada, collection.id, undefined), 400);
    expectProblem(await removeItem(ada, newId(), { savedItemId: item }), 404);
    expectProblem(await removeItem(bob, collection.id, { savedItemId: item }), 403);
    expect((await getCollection(collection.id)).json().collection.itemCount).toBe(1);
  });

  it('checks the body before the id: a bad id with a bad body is 400, on adding and removing alike', async () => {
    for (const change of [addItem, removeItem]) {
      expectProblem(await change(ada, 'not-a-uuid', {}), 400);
      expectProblem(await change(ada, 'not-a-uuid', undefined), 400);
      expectProblem(await change(ada, 'not-a-uuid', { savedItemId: newId() }), 404);
    }
  });

  it('removes nothing from a collection deleted while the removal waited for it', async () => {
    const collection = await harness.created(ada);
    const item = await savedItem(ada);
    await addItem(ada, collection.id, { savedItemId: item });
    // Another transaction deletes the collection and holds its row until it commits.
    const deleting = await harness.pool.connect();
    try {
      await deleting.query('BEGIN');
      await deleting.query(
        "UPDATE collections SET deleted = true, revision = revision + 1, name = '', description = '' WHERE id = $1",
        [collection.id],
      );
      const removal = removeItem(ada, collection.id, { savedItemId: item });
      // The barrier: the removal is waiting for the deleting transaction's row lock.
      await eventually(async () => {
        const { rowCount } = await harness.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
        );
        return rowCount! > 0 ? true : undefined;
      });
      await deleting.query('COMMIT');
      expectProblem(await removal, 404);
    } finally {
      deleting.release();
    }
    const { rows } = await harness.pool.query('SELECT 1 FROM saved_items WHERE id = $1', [item]);
    expect(rows).toHaveLength(1);
  });
});

describe('GET /api/collections/{id}/items', () => {
  it('lists the items most recently added first, with pages and the content as it is now', async () => {
    const collection = await harness.created(ada);
    const items = [await savedItem(ada), await savedItem(ada), await savedItem(ada)];
    for (const savedItemId of [items[2], items[0], items[1]]) await addItem(ada, collection.id, { savedItemId });

    const first = (await harness.call('GET', `/api/collections/${collection.id}/items?limit=2`)).json();
    expect(first.savedItems.map((i: { id: string }) => i.id)).toEqual([items[1], items[0]]);
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, nextCursor: expect.any(String) });
    expect(first.savedItems[0]).toMatchObject({
      userId: ada.user.id,
      contentType: 'recipe',
      content: { author: { username: 'bob' } },
    });
    const second = (await harness.call('GET', `/api/collections/${collection.id}/items?limit=2&page=2`)).json();
    expect(second.savedItems.map((i: { id: string }) => i.id)).toEqual([items[2]]);
  });

  it('answers each page from one snapshot while the owner removes and adds items', async () => {
    const collection = await harness.created(ada);
    const live: string[] = [];
    for (let index = 0; index < 20; index++) {
      live.push(await savedItem(ada));
      expect((await addItem(ada, collection.id, { savedItemId: live.at(-1) })).statusCode).toBe(201);
    }
    // Another client: the oldest item removed, then a new one added, over and over.
    const churn = async () => {
      for (let round = 0; round < 30; round++) {
        expect((await removeItem(ada, collection.id, { savedItemId: live.shift() })).statusCode).toBe(200);
        live.push(await savedItem(ada));
        expect((await addItem(ada, collection.id, { savedItemId: live.at(-1) })).statusCode).toBe(201);
      }
    };
    const answers = await readWhileWriting(
      async () => (await harness.call('GET', `/api/collections/${collection.id}/items?limit=100`)).json(),
      churn,
      2,
    );
    expect(pagesAtOdds(answers, (answer) => answer.savedItems)).toEqual([]);
  });

  it('answers 404 for a missing or deleted collection and 400 for a bad page', async () => {
    const collection = await harness.created(ada);
    expectProblem(await harness.call('GET', `/api/collections/${collection.id}/items?limit=0`), 400);
    await harness.call('DELETE', `/api/collections/${collection.id}`, ada);
    expectProblem(await harness.call('GET', `/api/collections/${collection.id}/items`), 404);
    expectProblem(await harness.call('GET', `/api/collections/${newId()}/items`), 404);
  });
});

describe('API document security', () => {
  it('says which operations take a token: required where it must come, optional where a bad one is still 401', async () => {
    const document = (await harness.call('GET', '/openapi.json')).json() as {
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    const security = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation.security]),
      ),
    );
    const required = [{ bearerAuth: [] }];
    const optional = [{}, { bearerAuth: [] }];
    expect(security).toEqual({
      'POST /api/collections': required,
      'GET /api/collections/{id}': optional,
      'DELETE /api/collections/{id}': required,
      'GET /api/collections/{id}/items': optional,
      'POST /api/collections/{id}/items': required,
      'DELETE /api/collections/{id}/items': required,
      'POST /api/saved-items': required,
      'DELETE /api/saved-items/{id}': required,
      'GET /api/users/{id}/saved-items': optional,
      'GET /api/users/{id}/collections': optional,
    });
    for (const [operation, url] of [
      ['GET /api/collections/{id}', `/api/collections/${newId()}`],
      ['GET /api/users/{id}/collections', `/api/users/${ada.user.id}/collections`],
    ] as const) {
      expect(security[operation]).toEqual(optional);
      expectProblem(await harness.call('GET', url, undefined, undefined, { authorization: 'Bearer not.a.token' }), 401);
    }
  });
});
