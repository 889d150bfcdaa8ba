import {
  type ContentSnapshot,
  type ContentType,
  createEvent,
  type EventDefinition,
  newId,
  postCreated,
  recipeCreated,
  userCreated,
  type UserSnapshot,
} from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import type { App } from '@recipes/http';
import { inTurn, type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import {
  type ContentServiceStub,
  stubContentService,
  stubUsersService,
  type UsersServiceStub,
} from '@recipes/testing/stubs';
import { expect } from 'vitest';
import type { CollectionsConfig } from '../src/config.js';
import { type CollectionsParts, collectionsService } from '../src/service.js';

export { bearer, expectProblem, expectUnauthorized } from '@recipes/testing/service';

export interface TestUser {
  user: UserSnapshot;
  token: string;
  headers: { authorization: string };
}

export interface CollectionsHarness extends ServiceHarness<CollectionsConfig, CollectionsParts>, CollectionsRequests {
  /** The owners of users and content, as the directories' look-ups reach them. */
  owners: { users: UsersServiceStub; content: ContentServiceStub };
  /** Delivers an event to the service's real handlers, as the broker would. */
  publish(definition: EventDefinition, data: unknown): Promise<void>;
  /** A user the users service knows; the collections service hears of them through `user.created` unless `quietly`. */
  user(username: string, options?: { quietly?: boolean }): Promise<TestUser>;
  /** A well-signed token of an account nobody knows, not even the users service. */
  stranger(username: string): TestUser;
  /** A recipe or post by `authorId`, announced by its created event unless `quietly` (then only look-ups find it). */
  content(
    contentType: ContentType,
    authorId: string,
    options?: Partial<ContentSnapshot> & { quietly?: boolean },
  ): Promise<ContentSnapshot>;
}

/**
 * The collections service on a fresh, migrated database, its event handlers and its neighbours (the shared stubs) at
 * hand.
 */
export async function collectionsHarness(env: Record<string, string> = {}): Promise<CollectionsHarness> {
  const owners = { users: await stubUsersService(), content: await stubContentService() };
  const harness = await serviceHarness(collectionsService, {
    env: { USERS_INTERNAL_URL: owners.users.url, CONTENT_INTERNAL_URL: owners.content.url, ...env },
    neighbours: Object.values(owners),
  });

  const publish = async (definition: EventDefinition, data: unknown) =>
    harness.deliver(createEvent(definition, data as never, { producer: definition.producer, correlationId: 'test' }));
  const signedIn = (user: UserSnapshot): TestUser => {
    const token = harness.tokenFor(user);
    return { user, token, headers: { authorization: `Bearer ${token}` } };
  };

  return {
    ...harness,
    ...collectionsRequests(harness.app),
    owners,
    publish,
    async user(username, { quietly = false } = {}) {
      const user = owners.users.register(username);
      if (!quietly) await publish(userCreated, user);
      return signedIn(user);
    },
    stranger: (username) => signedIn({ id: newId(), username, avatarUrl: null, revision: 0 }),
    async content(contentType, authorId, { quietly = false, ...overrides } = {}) {
      const snapshot = owners.content.publish(contentType, authorId, overrides);
      if (!quietly) await publish(contentType === 'recipe' ? recipeCreated : postCreated, snapshot);
      return snapshot;
    },
  };
}

/** A harness (see `collectionsHarness`), and the users a test file starts with, signed up in turn as `user` does. */
export async function collectionsHarnessWith<const N extends readonly string[]>(
  usernames: N,
  env: Record<string, string> = {},
) {
  const harness = await collectionsHarness(env);
  return { harness, users: await inTurn(usernames, (username) => harness.user(username)) };
}

/** Timestamps as the API writes them: ISO 8601 UTC with milliseconds. */
export const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Method = 'GET' | 'POST' | 'DELETE';

type CollectionsRequests = ReturnType<typeof collectionsRequests>;

/** The requests the tests make of `app`, as `user` where one is given. */
function collectionsRequests(app: App) {
  const call = (
    method: Method,
    url: string,
    user?: TestUser,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    app.inject({
      method,
      url,
      headers: { ...(user?.headers ?? {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  async function created(user: TestUser, body: Record<string, unknown> = { name: 'Street' }) {
    const response = await call('POST', '/api/collections', user, body);
    expect(response.statusCode).toBe(201);
    return response.json().collection as {
      id: string;
      name: string;
      description: string;
      itemCount: number;
      createdAt: string;
    };
  }

  const save = (user: TestUser | undefined, payload: unknown) =>
    app.inject({ method: 'POST', url: '/api/saved-items', payload: payload as object, headers: user?.headers ?? {} });
  const unsave = (user: TestUser | undefined, id: string) =>
    app.inject({ method: 'DELETE', url: `/api/saved-items/${id}`, headers: user?.headers ?? {} });
  const listing = async (user: TestUser) =>
    (await app.inject({ method: 'GET', url: `/api/users/${user.user.id}/saved-items?limit=100` })).json();

  async function saved(user: TestUser, contentType: 'recipe' | 'post', contentId: string): Promise<{ id: string }> {
    const response = await save(user, { contentType, contentId });
    expect(response.statusCode).toBe(201);
    return response.json().savedItem;
  }

  async function collectionOf(user: TestUser, ...savedItemIds: string[]): Promise<string> {
    const response = await app.inject({
      method: 'POST',
      url: '/api/collections',
      payload: { name: 'Board' },
      headers: user.headers,
    });
    const { id } = response.json().collection;
    for (const savedItemId of savedItemIds) {
      const added = await app.inject({
        method: 'POST',
        url: `/api/collections/${id}/items`,
        payload: { savedItemId },
        headers: user.headers,
      });
      expect(added.statusCode).toBe(201);
    }
    return id;
  }

  const itemCount = async (collectionId: string) =>
    (await app.inject({ method: 'GET', url: `/api/collections/${collectionId}` })).json().collection.itemCount;

  return {
    /** Any request, with a body when `payload` is given. */
    call,
    /** A collection of `user`'s, created through the API (201 expected). */
    created,
    save,
    unsave,
    /** `user`'s saved items, the first hundred. */
    listing,
    /** A saved item of `user`'s, saved through the API (201 expected). */
    saved,
    /** A collection of `user`'s holding `savedItemIds`. */
    collectionOf,
    itemCount,
  };
}

/** The totals the triggers keep, next to the same totals counted from scratch: they must always agree. */
export async function totalsAndRecount(pool: Pool) {
  const kept = await pool.query(
    `SELECT user_id, content_type, standalone, count FROM saved_item_totals WHERE count > 0 ORDER BY 1, 2, 3`,
  );
  const counted = await pool.query(
    `SELECT user_id, content_type, collection_count = 0 AS standalone, count(*)::int AS count
       FROM saved_items GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  const items = await pool.query(
    `SELECT (SELECT count(*)::int FROM collection_items ci WHERE ci.saved_item_id = s.id) AS counted, s.collection_count AS kept
       FROM saved_items s`,
  );
  const collections = await pool.query(
    `SELECT (SELECT count(*)::int FROM collection_items ci WHERE ci.collection_id = c.id) AS counted, c.item_count AS kept
       FROM collections c`,
  );
  return {
    kept: { totals: kept.rows, items: items.rows.map((r) => r.kept), collections: collections.rows.map((r) => r.kept) },
    counted: {
      totals: counted.rows,
      items: items.rows.map((r) => r.counted),
      collections: collections.rows.map((r) => r.counted),
    },
  };
}
