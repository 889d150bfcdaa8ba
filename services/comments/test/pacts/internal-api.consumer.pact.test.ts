import { MatchersV3, PactV3 } from '@pact-foundation/pact';
import { CollectionDirectory, ContentDirectory, UserDirectory } from '@recipes/directory';
import { migratedPool } from '@recipes/testing/service';
import { pactNames, pactsDir } from '@recipes/testing/pact';
import { describe, expect, it } from 'vitest';
import { targetOwners } from '../../src/targets.js';
import { commentsService } from '../../src/service.js';

/**
 * What comments asks of the owners' internal look-ups, when its read models have not yet heard of a
 * user or target created a moment ago: the real directory code against the Pact mock server. Ids the
 * owner makes come from the provider state (`fromProviderState`), so the owner can create the thing.
 */
const { fromProviderState, integer, like, regex, uuid } = MatchersV3;
const ISO_MILLIS = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const createdAt = regex(ISO_MILLIS, '2026-11-22T10:00:00.000Z');

const pool = migratedPool(commentsService);

const pactWith = (owner: string) => new PactV3({ consumer: 'comments', provider: pactNames.api(owner), dir: pactsDir });

/** A path with an id the provider state supplies; `example` stands in for it here. */
const pathWithId = (prefix: string, example: string) => fromProviderState(`${prefix}/\${id}`, `${prefix}/${example}`);

describe('users-api', () => {
  it('finds a user registered a moment ago, by id', async () => {
    const id = '0190f5a4-0000-7000-8000-000000000101';
    const pact = pactWith('users')
      .given('a user exists', { username: 'pact_ada' })
      .uponReceiving('a look-up of a user by id')
      .withRequest({ method: 'GET', path: pathWithId('/internal/users', id) })
      .willRespondWith({
        status: 200,
        body: { user: { id: uuid(id), username: 'pact_ada', avatarUrl: null, revision: integer(0) } },
      });
    await pact.executeTest(async (server) => {
      const users = new UserDirectory({ pool, usersUrl: server.url });
      expect(await users.findById(id)).toEqual({ id, username: 'pact_ada', avatarUrl: null, revision: 0 });
    });
  });

  it('says there is no such user', async () => {
    const id = '0190f5a4-0000-7000-8000-000000000102';
    const pact = pactWith('users')
      .uponReceiving('a look-up of a user who does not exist')
      .withRequest({ method: 'GET', path: `/internal/users/${id}` })
      .willRespondWith({ status: 404 });
    await pact.executeTest(async (server) => {
      expect(await new UserDirectory({ pool, usersUrl: server.url }).findById(id)).toBeUndefined();
    });
  });

  it('resolves mentioned names in any case, leaving out names of nobody', async () => {
    const id = '0190f5a4-0000-7000-8000-000000000103';
    const pact = pactWith('users')
      .given('a user exists', { username: 'Pact_Grace' })
      .uponReceiving('a look-up of users by name')
      .withRequest({ method: 'GET', path: '/internal/users', query: { usernames: 'pact_grace,pact_nobody' } })
      .willRespondWith({
        status: 200,
        body: { users: [{ id: uuid(id), username: 'Pact_Grace', avatarUrl: null, revision: integer(0) }] },
      });
    await pact.executeTest(async (server) => {
      const found = await new UserDirectory({ pool, usersUrl: server.url }).findByUsernames([
        'PACT_GRACE',
        'pact_nobody',
      ]);
      expect([...found.entries()]).toEqual([
        ['pact_grace', { id, username: 'Pact_Grace', avatarUrl: null, revision: 0 }],
      ]);
    });
  });
});

describe('content-api', () => {
  const content = (id: string, deleted: boolean) => ({
    content: {
      id: uuid(id),
      authorId: uuid('0190f5a4-0000-7000-8000-0000000001a1'),
      title: like('Classic Chrome street'),
      coverImageUrl: null,
      deleted,
      revision: integer(deleted ? 1 : 0),
      createdAt,
    },
  });

  it.each([
    { state: 'a recipe exists', kind: 'recipe', id: '0190f5a4-0000-7000-8000-000000000111', deleted: false },
    { state: 'a deleted recipe exists', kind: 'recipe', id: '0190f5a4-0000-7000-8000-000000000112', deleted: true },
    { state: 'a post exists', kind: 'post', id: '0190f5a4-0000-7000-8000-000000000113', deleted: false },
  ] as const)('when $state', async ({ state, kind, id, deleted }) => {
    const pact = pactWith('content')
      .given(state)
      .uponReceiving(`a look-up of ${state.replace(' exists', '')}`)
      .withRequest({ method: 'GET', path: pathWithId(`/internal/content/${kind}s`, id) })
      .willRespondWith({ status: 200, body: content(id, deleted) });
    await pact.executeTest(async (server) => {
      const directory = new ContentDirectory({ pool, contentUrl: server.url });
      const ownerOf = targetOwners(directory, new CollectionDirectory({ pool, collectionsUrl: 'http://127.0.0.1:9' }));
      expect(await ownerOf({ type: kind, id })).toBe(deleted ? undefined : '0190f5a4-0000-7000-8000-0000000001a1');
    });
  });

  it('says there is no such recipe', async () => {
    const id = '0190f5a4-0000-7000-8000-000000000114';
    const pact = pactWith('content')
      .uponReceiving('a look-up of a recipe that does not exist')
      .withRequest({ method: 'GET', path: `/internal/content/recipes/${id}` })
      .willRespondWith({ status: 404 });
    await pact.executeTest(async (server) => {
      expect(await new ContentDirectory({ pool, contentUrl: server.url }).find('recipe', id)).toBeUndefined();
    });
  });
});

describe('collections-api', () => {
  const collection = (id: string, deleted: boolean) => ({
    collection: {
      id: uuid(id),
      ownerId: uuid('0190f5a4-0000-7000-8000-0000000001b1'),
      name: like('Winter light'),
      deleted,
      revision: integer(deleted ? 1 : 0),
      createdAt,
    },
  });

  it.each([
    { state: 'a collection exists', id: '0190f5a4-0000-7000-8000-000000000121', deleted: false },
    { state: 'a deleted collection exists', id: '0190f5a4-0000-7000-8000-000000000122', deleted: true },
  ] as const)('when $state', async ({ state, id, deleted }) => {
    const pact = pactWith('collections')
      .given(state)
      .uponReceiving(`a look-up of ${state.replace(' exists', '')}`)
      .withRequest({ method: 'GET', path: pathWithId('/internal/collections', id) })
      .willRespondWith({ status: 200, body: collection(id, deleted) });
    await pact.executeTest(async (server) => {
      const directory = new CollectionDirectory({ pool, collectionsUrl: server.url });
      const ownerOf = targetOwners(new ContentDirectory({ pool, contentUrl: 'http://127.0.0.1:9' }), directory);
      expect(await ownerOf({ type: 'collection', id })).toBe(
        deleted ? undefined : '0190f5a4-0000-7000-8000-0000000001b1',
      );
    });
  });

  it('says there is no such collection', async () => {
    const id = '0190f5a4-0000-7000-8000-000000000123';
    const pact = pactWith('collections')
      .uponReceiving('a look-up of a collection that does not exist')
      .withRequest({ method: 'GET', path: `/internal/collections/${id}` })
      .willRespondWith({ status: 404 });
    await pact.executeTest(async (server) => {
      expect(await new CollectionDirectory({ pool, collectionsUrl: server.url }).find(id)).toBeUndefined();
    });
  });
});
