import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { eventually } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { startTestSystem } from './support/system.js';
import { type Fingerprint, settledFingerprint, withDatabase } from './support/database.js';
import { expectProblem, expectUnauthorized, type JsonCall, jsonClient } from './support/http.js';
import { fillPath, type Operation, publicOperations } from './support/openapi.js';
import { type SystemTokens, systemTokens } from './support/tokens.js';
import { type Account, seedWorld, type World } from './support/world.js';

/**
 * Authentication and authorization through the gateway: every endpoint that takes a token refuses every
 * kind of bad one, and no user can read what docs/api.md §2 keeps private or change what belongs to someone else.
 */
const SYSTEM = 'recipes_auth';

let system: StartedSystem;
let call: JsonCall;
let world: World;
let tokens: SystemTokens;
let operations: Operation[];
/** A group of Ada's notifications, for the routes that name one. */
let adaGroupKey: string;

beforeAll(async () => {
  system = await startTestSystem({
    name: SYSTEM,
    portOffset: 3200,
    env: {
      RATE_LIMIT_ENABLED: 'false',
      LOGIN_LIMIT_PER_ADDRESS: '100000',
      REGISTER_LIMIT_PER_ADDRESS: '100000',
      COMMENT_LIMIT_PER_MINUTE: '100000',
      DATABASE_POOL_MAX: '4',
      // docs/api.md §2: the owner-only policy for saved items, so that there is something private to refuse.
      SAVED_ITEMS_VISIBILITY: 'owner',
    },
  });
  const gateway = system.urlOf('gateway');
  call = jsonClient(`${gateway}/api`);
  world = await seedWorld(call, 'auth');
  tokens = systemTokens(SYSTEM);
  operations = await publicOperations(gateway);
  // Bob's three comments have become her notifications: the mentions on her recipe and post, and his
  // comment on her collection, which tells its owner (docs/api.md §11.4).
  await eventually(async () => ((await notificationsOf(world.ada)).length === 3 ? true : undefined), 10_000);
  adaGroupKey = (await notificationsOf(world.ada))[0]!.groupKey;
}, 90_000);
afterAll(() => system?.stop());

const unchanged = () => withDatabase(system.databaseUrl, (db) => settledFingerprint(db));

async function notificationsOf(account: Account): Promise<{ id: string; isRead: boolean; groupKey: string }[]> {
  const response = await call('GET', '/notifications?limit=100', undefined, account.token);
  expect(response.status).toBe(200);
  return response.body.data;
}

/** Ada's things, by the path segment before `{id}`, so that a request with a good token would act on them. */
function concretePath(path: string): string {
  const [, kind] = /^\/api\/(?:[\w-]+\/)?([\w-]+)\/\{id\}/.exec(path) ?? [];
  const idFor: Record<string, string> = {
    users: world.ids.ada,
    recipes: world.ids.recipe,
    posts: world.ids.post,
    collections: world.ids.collection,
    'saved-items': world.ids.savedPost,
    comments: world.ids.comment,
    // Ada has none: the token is refused before the id is looked at.
    subscriptions: randomUUID(),
  };
  // Ada's session, the one her token names.
  const session = JSON.parse(Buffer.from(world.ada.token.split('.')[1]!, 'base64url').toString()).sid as string;
  const id = path.startsWith('/api/auth/sessions/') ? session : kind ? idFor[kind]! : '';
  return fillPath(path, { id, commentId: world.ids.comment, groupKey: adaGroupKey }).replace(/^\/api/, '');
}

/** A body each operation would accept, so that only the token stands between the request and a change. */
function validBody(operation: Operation): unknown {
  const bodies: Record<string, unknown> = {
    'POST /api/auth/register': { username: 'forged_user', password: 'correct horse battery' },
    'POST /api/auth/login': { username: world.ada.user.username, password: 'correct horse battery' },
    'POST /api/auth/refresh': { refreshToken: 'x'.repeat(43) },
    'PUT /api/users/me/password': { currentPassword: 'correct horse battery', newPassword: 'another horse battery' },
    'PATCH /api/users/me': { avatarUrl: 'https://cdn.example.com/forged.png' },
    'POST /api/recipes': { title: 'Forged', cameraModel: 'X100V', filmSimulation: 'Velvia' },
    'POST /api/posts': { title: 'Forged' },
    'POST /api/recipes/{id}/comments': { content: 'forged' },
    'POST /api/collections/{id}/comments': { content: 'forged' },
    'POST /api/posts/{id}/comments': { content: 'forged' },
    'PATCH /api/recipes/{id}/comments/{commentId}': { content: 'forged' },
    'PATCH /api/collections/{id}/comments/{commentId}': { content: 'forged' },
    'PATCH /api/posts/{id}/comments/{commentId}': { content: 'forged' },
    'POST /api/saved-items': { contentType: 'post', contentId: world.ids.post },
    'POST /api/collections': { name: 'Forged' },
    'POST /api/collections/{id}/items': { savedItemId: world.ids.savedPost },
    'DELETE /api/collections/{id}/items': { savedItemId: world.ids.savedItem },
    'PATCH /api/notifications/read': { notificationIds: [world.ids.comment] },
    'POST /api/notifications/read-all': { upTo: world.ids.comment },
    'PUT /api/notifications/preferences': { types: { mention_recipe_comment: false } },
    'DELETE /api/users/me': { password: 'correct horse battery' },
    'POST /api/push/subscriptions': {
      endpoint: 'https://push.example.com/forged',
      keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
    },
  };
  if (!operation.body) return undefined;
  expect(bodies, `a valid body for ${operation.key}`).toHaveProperty([operation.key]);
  return bodies[operation.key];
}

const takingToken = () => operations.filter((operation) => operation.token !== 'none');

describe('authentication on every endpoint', () => {
  let before: Fingerprint;
  beforeAll(async () => {
    before = await unchanged();
  });

  it('finds those endpoints in the API document', () => {
    const keys = takingToken().map((operation) => operation.key);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys).toEqual(
      expect.arrayContaining([
        'GET /api/users/me',
        'PATCH /api/users/me',
        'POST /api/recipes',
        'DELETE /api/recipes/{id}',
        'GET /api/users/{id}/recipes',
        'POST /api/recipes/{id}/comments',
        'POST /api/saved-items',
        'DELETE /api/saved-items/{id}',
        'GET /api/collections/{id}',
        'POST /api/collections/{id}/items',
        'DELETE /api/collections/{id}/items',
        'GET /api/users/{id}/saved-items',
        'GET /api/notifications',
        'GET /api/notifications/unread-count',
        'PATCH /api/notifications/read',
      ]),
    );
  });

  it('refuses a request without a token where one is required, with 401 problem+json', async () => {
    const required = takingToken().filter((operation) => operation.token === 'required');
    expect(required.length).toBeGreaterThan(0);
    for (const operation of required) {
      const response = await call(operation.method, concretePath(operation.path), validBody(operation));
      expectUnauthorized(response.raw, 'TOKEN_MISSING', `${operation.key} without a token`);
    }
  });

  it.each([
    'alg none',
    'alg None',
    'alg NONE',
    'HS256 signed with the public key',
    'tampered payload',
    'bad signature',
    'signed by another key',
    'expired',
    'not yet valid',
    'wrong iss',
    'wrong aud',
    'embedded jwk header',
  ])('refuses a token with %s on every operation, public ones included, with 401 problem+json', async (forgery) => {
    const forge = tokens.forgeries[forgery]!;
    for (const operation of operations) {
      const response = await call(
        operation.method,
        concretePath(operation.path),
        validBody(operation),
        forge(world.ada.user),
      );
      // Only a token the users service signed, whole but for its time, is told expired (docs/api.md §2).
      const reason = forgery === 'expired' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID';
      expectUnauthorized(response.raw, reason, `${operation.key} with ${forgery}`);
    }
  });

  it('refuses a token that is not a JWT at all on every operation', async () => {
    for (const operation of operations) {
      const response = await call(operation.method, concretePath(operation.path), validBody(operation), 'not-a-jwt');
      expectUnauthorized(response.raw, 'TOKEN_INVALID', `${operation.key} with not-a-jwt`);
    }
  });

  it('accepts the genuine token on the same requests (the refusals were about the token)', async () => {
    const response = await call('GET', '/users/me', undefined, tokens.valid(world.ada.user));
    expect(response.status).toBe(200);
    expect(response.body.user.id).toBe(world.ids.ada);
    // The reads by a list of ids take the list, or answer 400 before anything else.
    const query: Record<string, string> = {
      'GET /api/recipes': `?ids=${world.ids.recipe}`,
      'GET /api/posts': `?ids=${world.ids.post}`,
    };
    for (const operation of operations.filter((o) => o.method === 'GET')) {
      const path = `${concretePath(operation.path)}${query[operation.key] ?? ''}`;
      const read = await call('GET', path, undefined, tokens.valid(world.ada.user));
      expect(read.status, `${operation.key} with a genuine token`).toBe(200);
    }
  });

  it('changed nothing in any service', async () => {
    expect(await unchanged()).toEqual(before);
  });
});

describe('object-level rules: bob on ada’s things', () => {
  let before: Fingerprint;
  let bobsSavedItem: string;
  beforeAll(async () => {
    const saved = await call(
      'POST',
      '/saved-items',
      { contentType: 'recipe', contentId: world.ids.recipe },
      world.bob.token,
    );
    expect(saved.status).toBe(201);
    bobsSavedItem = saved.body.savedItem.id;
    before = await unchanged();
  });

  const refused = async (status: 401 | 403, method: string, path: string, body?: unknown) => {
    const response = await call(method, path, body, world.bob.token);
    expectProblem(response.raw, status, `bob: ${method} ${path}`);
    return response;
  };

  it('reads her collection, as docs/api.md §2 has no private collections, but cannot delete it (403)', async () => {
    const read = await call('GET', `/collections/${world.ids.collection}`, undefined, world.bob.token);
    expect(read.status).toBe(200);
    expect(read.body.collection.owner.id).toBe(world.ids.ada);
    await refused(403, 'DELETE', `/collections/${world.ids.collection}`);
  });

  it('cannot add to or remove from her collection (403), with his own saved item or hers', async () => {
    for (const savedItemId of [bobsSavedItem, world.ids.savedPost]) {
      await refused(403, 'POST', `/collections/${world.ids.collection}/items`, { savedItemId });
    }
    for (const savedItemId of [bobsSavedItem, world.ids.savedItem]) {
      await refused(403, 'DELETE', `/collections/${world.ids.collection}/items`, { savedItemId });
    }
  });

  it('cannot unsave her saved items (403), nor list them under the owner-only policy (403; 401 without a token)', async () => {
    for (const id of [world.ids.savedItem, world.ids.savedPost]) await refused(403, 'DELETE', `/saved-items/${id}`);
    await refused(403, 'GET', `/users/${world.ids.ada}/saved-items`);
    expectProblem((await call('GET', `/users/${world.ids.ada}/saved-items`)).raw, 401);
    const own = await call('GET', `/users/${world.ids.ada}/saved-items`, undefined, world.ada.token);
    expect(own.status).toBe(200);
    expect(own.body.pagination.total).toBe(2);
  });

  it('cannot delete her recipe or her post (403)', async () => {
    await refused(403, 'DELETE', `/recipes/${world.ids.recipe}`);
    await refused(403, 'DELETE', `/posts/${world.ids.post}`);
  });

  it('never sees her notifications, and marking them read changes nothing and reveals nothing', async () => {
    const hers = await notificationsOf(world.ada);
    expect(hers.map((n) => n.isRead)).toEqual([false, false, false]);
    const herIds = hers.map((n) => n.id);
    expect((await notificationsOf(world.bob)).map((n) => n.id)).not.toEqual(expect.arrayContaining([herIds[0]]));
    const mark = await call('PATCH', '/notifications/read', { notificationIds: herIds }, world.bob.token);
    expect(mark.status).toBe(200);
    expect(mark.body).toEqual({ message: 'Notifications marked as read', updated: 0 });
    expect((await notificationsOf(world.ada)).map((n) => n.isRead)).toEqual([false, false, false]);
    expect((await call('GET', '/notifications/unread-count', undefined, world.ada.token)).body).toEqual({ count: 3 });
  });

  it('changed nothing in any service', async () => {
    expect(await unchanged()).toEqual(before);
  });

  it('while ada herself may do each of those things (the refusals were about ownership)', async () => {
    // Read first: deleting the recipe and the post below retracts the notifications about them.
    const herIds = (await notificationsOf(world.ada)).map((n) => n.id);
    expect(
      (await call('PATCH', '/notifications/read', { notificationIds: herIds }, world.ada.token)).body.updated,
    ).toBe(3);
    expect(
      (
        await call(
          'DELETE',
          `/collections/${world.ids.collection}/items`,
          { savedItemId: world.ids.savedItem },
          world.ada.token,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await call(
          'POST',
          `/collections/${world.ids.collection}/items`,
          { savedItemId: world.ids.savedPost },
          world.ada.token,
        )
      ).status,
    ).toBe(201);
    expect((await call('DELETE', `/saved-items/${world.ids.savedPost}`, undefined, world.ada.token)).status).toBe(200);
    expect((await call('DELETE', `/collections/${world.ids.collection}`, undefined, world.ada.token)).status).toBe(200);
    expect((await call('DELETE', `/recipes/${world.ids.recipe}`, undefined, world.ada.token)).status).toBe(200);
    expect((await call('DELETE', `/posts/${world.ids.post}`, undefined, world.ada.token)).status).toBe(200);
  });
});
