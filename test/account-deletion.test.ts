import { randomUUID } from 'node:crypto';
import { eventually } from '@recipes/testing';
import { redisKeys, removeRedisKeys, TEST_REDIS_URL } from '@recipes/testing/cleanup';
import { type EventStreamClient, openEventStream } from '@recipes/testing/sse';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, apiOf, databaseOf, unlimited } from './faults/support.js';
import { expectUnauthorized } from './support/http.js';
import { findLeftovers, type Leftover, searchedColumnCount } from './support/leftovers.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Leaving (docs/api.md §11.2), proved: a user who did everything deletes their account; once every service
 * has confirmed, no table of any schema holds their id or their name but the tombstone (a deleted thing keeps
 * no text, whoever deleted it: others' comments deleted with their recipe included), nor any key of the shared
 * store (Redis), and the user who dealt with them sees a world without them: counts, lists and unread counts
 * agree. A retried deletion is 202 again. A service stopped during a deletion finishes its part once it is back.
 */
let system: TestSystem;
let db: ReturnType<typeof databaseOf>;
let api: ReturnType<typeof apiOf>;
const streams: EventStreamClient[] = [];
// The services count limits and failed logins in the real Redis (REDIS_URL), under a prefix of this file's own.
const redisPrefix = `test-leaving-${randomUUID()}:`;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_leaving',
    portOffset: 8300,
    env: {
      ...unlimited,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix,
      ...(process.env.LEAVING_LOGS === '1' ? { LOG_LEVEL: 'info' } : {}),
    },
    logs: process.env.LEAVING_LOGS === '1' ? 'inherit' : 'ignore',
  });
  db = databaseOf(system);
  api = apiOf(system);
}, 120_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await db?.close();
  await system?.stop();
  await removeRedisKeys(TEST_REDIS_URL, redisPrefix);
});

/** The keys of the shared store (this system's) whose name holds one of `needles`, in any case. */
const redisKeysNaming = async (needles: string[]) =>
  (await redisKeys(TEST_REDIS_URL, redisPrefix)).filter((key) =>
    needles.some((needle) => key.toLowerCase().includes(needle.toLowerCase())),
  );

async function created<T = any>(
  method: string,
  path: string,
  body: unknown,
  account: Account,
  status = 201,
): Promise<T> {
  const response = await api.call(method, path, body, account.token);
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status);
  return response.body;
}

/** Everything a user can make, with `other` in it (tagged, mentioned, saved, commented on). */
async function liveEverywhere(leaver: Account, other: Account, third: Account) {
  const tags = { taggedUsernames: [other.user.username] };
  const images = {
    imageUrls: ['https://img.example/1.jpg', 'https://img.example/2.jpg'],
    coverImageUrl: 'https://img.example/c.jpg',
  };
  const own = (
    await created(
      'POST',
      '/recipes',
      // Their own words name them too: the search below finds what keeps them.
      { title: `Mine, by ${leaver.user.username}`, cameraModel: 'X100V', filmSimulation: 'Acros', ...images, ...tags },
      leaver,
    )
  ).recipe.id;
  const post = (await created('POST', '/posts', { title: `A post of ${leaver.user.username}`, ...tags }, leaver)).post
    .id;
  const theirs = (
    await created('POST', '/recipes', { title: 'Theirs', cameraModel: 'X-T5', filmSimulation: 'Velvia' }, other)
  ).recipe.id;
  // Saved items of their own and of the other's, in a collection of theirs.
  const savedOwn = (await created('POST', '/saved-items', { contentType: 'recipe', contentId: own }, leaver)).savedItem
    .id;
  const savedTheirs = (await created('POST', '/saved-items', { contentType: 'recipe', contentId: theirs }, leaver))
    .savedItem.id;
  await created('POST', '/saved-items', { contentType: 'post', contentId: post }, leaver);
  const collection = (await created('POST', '/collections', { name: `${leaver.user.username} leaving soon` }, leaver))
    .collection.id;
  await created('POST', `/collections/${collection}/items`, { savedItemId: savedOwn }, leaver);
  await created('POST', `/collections/${collection}/items`, { savedItemId: savedTheirs }, leaver);
  // Reactions to the other's recipe, a comment on it mentioning them (then edited), one on their own.
  await created('PUT', `/recipes/${theirs}/favorite`, undefined, leaver, 200);
  await created('PUT', `/recipes/${theirs}/repost`, undefined, leaver, 200);
  const comment = (
    await created('POST', `/recipes/${theirs}/comments`, { content: `Lovely @${other.user.username}` }, leaver)
  ).comment.id;
  await created(
    'PATCH',
    `/recipes/${theirs}/comments/${comment}`,
    { content: `Lovely, @${other.user.username}!` },
    leaver,
    200,
  );
  await created('POST', `/recipes/${own}/comments`, { content: 'Notes to self' }, leaver);
  await created('POST', `/collections/${collection}/comments`, { content: 'My board' }, leaver);
  await created('POST', `/posts/${post}/comments`, { content: 'My post' }, leaver);
  // Relations both ways, preferences, a stream.
  await created('PUT', `/users/${third.user.id}/mute`, undefined, leaver, 200);
  await created('PUT', `/users/${third.user.id}/block`, undefined, leaver, 200);
  await created('PUT', `/users/${leaver.user.id}/mute`, undefined, third, 200);
  await created('PUT', '/notifications/preferences', { types: { tag_post: false } }, leaver, 200);
  const stream = await openEventStream(`${system.urlOf('gateway')}/api/notifications/stream`, {
    authorization: `Bearer ${leaver.token}`,
  });
  streams.push(stream);
  expect(stream.status).toBe(200);
  return { own, post, theirs, collection, stream };
}

/** What the other does with the leaver's things: saves, favorites, comments, collects, and is notified. */
async function dealtWith(other: Account, own: string, post: string, leaverName: string) {
  const saved = (await created('POST', '/saved-items', { contentType: 'recipe', contentId: own }, other)).savedItem.id;
  await created('POST', '/saved-items', { contentType: 'post', contentId: post }, other);
  const collection = (await created('POST', '/collections', { name: 'Found' }, other)).collection.id;
  await created('POST', `/collections/${collection}/items`, { savedItemId: saved }, other);
  await created('PUT', `/recipes/${own}/favorite`, undefined, other, 200);
  // Their words about the leaver, on the leaver's recipe: deleted with it, they must keep no text.
  await created('POST', `/recipes/${own}/comments`, { content: `Nice one, thanks @${leaverName}` }, other);
  // The tags of a recipe and a post and the mention: three notifications from the leaver.
  await eventually(async () => ((await api.unreadCount(other)) === 3 ? true : undefined), 10_000);
  return { collection };
}

const deletionOf = async (userId: string) =>
  (
    await db.query<{ completedAt: Date | null; erasedBy: string[] }>(
      'SELECT erasure_completed_at AS "completedAt", erased_by AS "erasedBy" FROM users.users WHERE id = $1',
      [userId],
    )
  ).rows[0];

const completed = (userId: string) =>
  eventually(async () => ((await deletionOf(userId))?.completedAt ? true : undefined), 60_000, 100).catch(
    async (error: unknown) => {
      throw new Error(`${String(error)}; confirmed so far: ${JSON.stringify(await deletionOf(userId))}`);
    },
  );

/**
 * What is left of `account` anywhere: the tombstone only, or a test failure listing the rest. The live comments
 * `othersWords` (of other users, naming them) keep their text, as docs/api.md §11.2 says; a deleted one keeps none.
 */
async function expectOnlyTombstone(account: Account, othersWords: string[] = []) {
  const searched = await searchedColumnCount({
    query: (sql: string, params?: unknown[]) => db.query(sql, params),
  } as never);
  expect(searched.tables, 'the search reaches every service schema').toBeGreaterThan(40);
  const leftovers = await findLeftovers(
    { query: (sql: string, params?: unknown[]) => db.query(sql, params) } as never,
    [account.user.id, account.user.username],
  );
  const othersLiveWords = (left: Leftover) =>
    left.table === 'comments.comments' && left.column === 'content' && othersWords.some((id) => left.row.includes(id));
  expect(leftovers.filter((left) => left.table !== 'users.users' && !othersLiveWords(left))).toEqual([]);
  expect(leftovers.filter(othersLiveWords)).toHaveLength(othersWords.length);
  if (othersWords.length > 0) {
    const { rows } = await db.query<{ live: number }>(
      'SELECT count(*)::int AS live FROM comments.comments WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL AND author_id <> $2',
      [othersWords, account.user.id],
    );
    expect(rows[0]!.live, 'the words kept are of others, live').toBe(othersWords.length);
  }
  expect(new Set(leftovers.filter((left) => left.table === 'users.users').map((left) => left.column))).toEqual(
    new Set(['id', 'username']),
  );
  const { rows } = await db.query('SELECT password_hash, avatar_url, deleted_at FROM users.users WHERE id = $1', [
    account.user.id,
  ]);
  expect(rows).toEqual([{ password_hash: null, avatar_url: null, deleted_at: expect.any(Date) }]);
}

describe('a user who did everything exports it', () => {
  it('gets one JSON file with every part, holding what they made; the fourth in an hour is refused', async () => {
    const ada = await api.register('export_ada');
    const bob = await api.register('export_bob');
    const third = await api.register('export_tom');
    const made = await liveEverywhere(ada, bob, third);
    await created('POST', `/recipes/${made.own}/comments`, { content: `Thanks @${ada.user.username}` }, bob);
    await eventually(async () => ((await api.unreadCount(ada)) === 1 ? true : undefined), 10_000);

    const response = await api.call('GET', '/users/me/export', undefined, ada.token);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment/);
    const exported = response.body;
    expect(Object.keys(exported)).toEqual([
      'exportedAt',
      'user',
      'recipes',
      'posts',
      'collections',
      'savedItems',
      'comments',
      'notifications',
      'mutes',
      'blocks',
      'preferences',
      'sessions',
      'pushSubscriptions',
    ]);
    expect(exported.user).toEqual(ada.user);
    expect(exported.recipes.map((recipe: { id: string }) => recipe.id)).toEqual([made.own]);
    expect(exported.recipes[0]).toMatchObject({
      title: `Mine, by ${ada.user.username}`,
      coverImageUrl: 'https://img.example/c.jpg',
      commentCount: 2,
      author: ada.user,
    });
    expect(exported.posts.map((post: { id: string }) => post.id)).toEqual([made.post]);
    expect(exported.collections).toEqual([
      expect.objectContaining({
        id: made.collection,
        name: `${ada.user.username} leaving soon`,
        itemCount: 2,
        owner: ada.user,
      }),
    ]);
    expect(exported.savedItems.map((item: { contentId: string }) => item.contentId).sort()).toEqual(
      [made.own, made.post, made.theirs].sort(),
    );
    expect(exported.comments).toHaveLength(4);
    expect(exported.comments.map((comment: { content: string }) => comment.content)).toContain(
      `Lovely, @${bob.user.username}!`,
    );
    expect(exported.comments.every((comment: { author: { id: string } }) => comment.author.id === ada.user.id)).toBe(
      true,
    );
    expect(exported.notifications).toEqual([
      expect.objectContaining({ type: 'mention_recipe_comment', actor: bob.user }),
    ]);
    expect(exported.mutes).toEqual([third.user]);
    expect(exported.blocks).toEqual([third.user]);
    expect(exported.preferences).toMatchObject({ tag_post: false, tag_recipe: true });
    expect(exported.sessions).toEqual([expect.objectContaining({ current: true })]);
    expect(exported.pushSubscriptions).toEqual([]);

    for (let i = 0; i < 2; i += 1)
      expect((await api.call('GET', '/users/me/export', undefined, ada.token)).status).toBe(200);
    const refused = await api.call('GET', '/users/me/export', undefined, ada.token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.call('GET', '/users/me/export', undefined, bob.token)).status).toBe(200);
  }, 60_000);
});

describe('a user who did everything leaves', () => {
  let leaver: Account;
  let other: Account;
  let third: Account;
  let made: Awaited<ReturnType<typeof liveEverywhere>>;
  let theirs: Awaited<ReturnType<typeof dealtWith>>;

  beforeAll(async () => {
    leaver = await api.register('leaving_lea');
    other = await api.register('leaving_ola');
    third = await api.register('leaving_tom');
    made = await liveEverywhere(leaver, other, third);
    theirs = await dealtWith(other, made.own, made.post, leaver.user.username);
  }, 60_000);

  it('refuses a wrong password as a failed login, and changes nothing', async () => {
    const response = await api.call('DELETE', '/users/me', { password: 'wrong horse' }, leaver.token);
    // A wrong password: no reason, as no token was at fault (docs/api.md §2).
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(response.body.reason).toBeUndefined();
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="recipes"');
    expect((await api.call('GET', `/users/${leaver.user.id}`)).status).toBe(200);
  });

  it('ends every session at once, frees nothing, and answers as for nobody', async () => {
    const response = await api.call('DELETE', '/users/me', { password: 'correct horse' }, leaver.token);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    expect(response.body).toEqual({ message: 'Account deletion started' });
    // Its answer lost, the client sends it again with the same token, whose session the first one ended.
    const retried = await api.call('DELETE', '/users/me', { password: 'correct horse' }, leaver.token);
    expect([retried.status, retried.body]).toEqual([202, { message: 'Account deletion started' }]);
    await made.stream.ended;
    expectUnauthorized((await api.call('GET', '/users/me', undefined, leaver.token)).raw, 'ACCOUNT_DELETED');
    // Every service refuses the token so, once the end reached it: the notifications service's stream just ended.
    await eventually(async () =>
      (await api.call('GET', '/notifications/unread-count', undefined, leaver.token)).status === 401 ? true : undefined,
    );
    expectUnauthorized(
      (await api.call('GET', '/notifications/unread-count', undefined, leaver.token)).raw,
      'ACCOUNT_DELETED',
    );
    const login = await api.call('POST', '/auth/login', { username: 'leaving_lea', password: 'correct horse' });
    const unknown = await api.call('POST', '/auth/login', { username: 'leaving_nobody', password: 'correct horse' });
    expect([login.status, login.body.detail]).toEqual([unknown.status, unknown.body.detail]);
    expect((await api.call('GET', `/users/${leaver.user.id}`)).status).toBe(404);
    expect((await api.call('GET', '/users/LEAVING_LEA')).status).toBe(404);
    expect(
      (await api.call('POST', '/auth/register', { username: 'Leaving_Lea', password: 'another horse' })).status,
    ).toBe(409);
  });

  it('erases them everywhere within 60 s: only the tombstone is left', async () => {
    await completed(leaver.user.id);
    expect((await deletionOf(leaver.user.id))!.erasedBy).toEqual([
      'collections',
      'comments',
      'content',
      'notifications',
    ]);
    await expectOnlyTombstone(leaver);
  }, 70_000);

  it('leaves the other user a consistent world', async () => {
    expect(await api.unreadCount(other)).toBe(0);
    const inbox = await api.call('GET', '/notifications', undefined, other.token);
    expect([inbox.body.data, inbox.body.pagination.total]).toEqual([[], 0]);
    const groups = await api.call('GET', '/notifications/groups', undefined, other.token);
    expect([groups.body.groups, groups.body.pagination.total]).toEqual([[], 0]);
    const recipe = (await api.call('GET', `/recipes/${made.theirs}`, undefined, other.token)).body.recipe;
    expect([recipe.favoriteCount, recipe.repostCount, recipe.commentCount]).toEqual([0, 0, 0]);
    const comments = await api.call('GET', `/recipes/${made.theirs}/comments`);
    expect([comments.body.comments, comments.body.pagination.total]).toEqual([[], 0]);
    const saved = await api.call('GET', `/users/${other.user.id}/saved-items`);
    expect([saved.body.savedItems, saved.body.pagination.total]).toEqual([[], 0]);
    const collection = await api.call('GET', `/collections/${theirs.collection}/items`);
    expect([collection.body.savedItems, collection.body.pagination.total]).toEqual([[], 0]);
    expect((await api.call('GET', `/collections/${theirs.collection}`)).body.collection.itemCount).toBe(0);
    expect((await api.call('GET', `/recipes/${made.own}`)).status).toBe(404);
    expect((await api.call('GET', `/posts/${made.post}`)).status).toBe(404);
    expect((await api.call('GET', `/collections/${made.collection}`)).status).toBe(404);
    expect((await api.call('GET', `/users/${leaver.user.id}/recipes`)).status).toBe(404);
    const mutes = await api.call('GET', '/users/me/mutes', undefined, third.token);
    expect([mutes.body.users, mutes.body.pagination.total]).toEqual([[], 0]);
  });
});

/** What a leaver may have, or others may have made about them, when they leave: each either there or not. */
const leavingWorlds = fc.record({
  /** Their recipe, and on it another user's comment naming them, and that user's reply to their own comment there. */
  recipe: fc.boolean(),
  thanksOnTheirRecipe: fc.boolean(),
  replyOnTheirRecipe: fc.boolean(),
  /** Their post and collection, each with another user's comment naming them. */
  post: fc.boolean(),
  collection: fc.boolean(),
  /** Their comment on another's recipe, and the other's reply to it naming them (deleted with the thread). */
  commentOnOthers: fc.boolean(),
  replyToTheirs: fc.boolean(),
  /** Another user's comment naming them on that user's own recipe: live, it keeps its words. */
  othersLiveWords: fc.boolean(),
  /** Another user's comment naming them, deleted by its author before they leave. */
  othersDeletedWords: fc.boolean(),
  /** Counts kept of them in the shared store: a data export (by id) and a failed login (by name). */
  exported: fc.boolean(),
  failedLogin: fc.boolean(),
});
type LeavingWorld = typeof leavingWorlds extends fc.Arbitrary<infer T> ? T : never;
const everything: LeavingWorld = {
  recipe: true,
  thanksOnTheirRecipe: true,
  replyOnTheirRecipe: true,
  post: true,
  collection: true,
  commentOnOthers: true,
  replyToTheirs: true,
  othersLiveWords: true,
  othersDeletedWords: true,
  exported: true,
  failedLogin: true,
};
const nothing = Object.fromEntries(Object.keys(everything).map((key) => [key, false])) as LeavingWorld;

let leavingRun = 0;

/** Makes `world` around a new leaver, then they leave; gives the leaver and the live comments naming them. */
async function leaveFrom(world: LeavingWorld) {
  leavingRun += 1;
  const tag = `${leavingRun}_${randomUUID().slice(0, 6)}`;
  const leaver = await api.register(`gone_${tag}`);
  const other = await api.register(`stay_${tag}`);
  const name = leaver.user.username;
  const comment = async (path: string, content: string, by: Account, parentId?: string) =>
    (await created('POST', `${path}/comments`, { content, ...(parentId ? { parentId } : {}) }, by)).comment
      .id as string;
  const othersRecipe = (
    await created(
      'POST',
      '/recipes',
      { title: `Of ${other.user.username}`, cameraModel: 'X-T5', filmSimulation: 'Acros' },
      other,
    )
  ).recipe.id;
  const kept: string[] = [];
  if (world.recipe) {
    const recipe = (
      await created(
        'POST',
        '/recipes',
        {
          title: `By ${name}`,
          description: `${name} wrote this`,
          cameraModel: 'X100V',
          filmSimulation: 'Acros',
          imageUrls: [`https://img.example/${name}.jpg`],
        },
        leaver,
      )
    ).recipe.id;
    if (world.thanksOnTheirRecipe) await comment(`/recipes/${recipe}`, `thanks @${name}`, other);
    if (world.replyOnTheirRecipe) {
      const notes = await comment(`/recipes/${recipe}`, 'notes to self', leaver);
      await comment(`/recipes/${recipe}`, `@${name} good notes`, other, notes);
    }
  }
  if (world.post) {
    const post = (await created('POST', '/posts', { title: `${name} posted` }, leaver)).post.id;
    await comment(`/posts/${post}`, `hi @${name}`, other);
  }
  if (world.collection) {
    const collection = (
      await created('POST', '/collections', { name: `${name} collects`, description: `by ${name}` }, leaver)
    ).collection.id;
    await comment(`/collections/${collection}`, `nice board @${name}`, other);
  }
  if (world.commentOnOthers) {
    const theirs = await comment(`/recipes/${othersRecipe}`, `lovely @${other.user.username}`, leaver);
    if (world.replyToTheirs) await comment(`/recipes/${othersRecipe}`, `thank you @${name}`, other, theirs);
  }
  if (world.othersLiveWords) kept.push(await comment(`/recipes/${othersRecipe}`, `we miss @${name}`, other));
  if (world.othersDeletedWords) {
    const said = await comment(`/recipes/${othersRecipe}`, `never mind @${name}`, other);
    await created('DELETE', `/recipes/${othersRecipe}/comments/${said}`, undefined, other, 200);
  }
  if (world.exported) expect((await api.call('GET', '/users/me/export', undefined, leaver.token)).status).toBe(200);
  if (world.failedLogin)
    expect((await api.call('DELETE', '/users/me', { password: 'wrong horse' }, leaver.token)).status).toBe(401);
  // What the shared store counts of them, by id (comments, exports) or name (failed logins), before they go.
  if (world.exported || world.failedLogin || world.commentOnOthers || world.replyOnTheirRecipe)
    expect(await redisKeysNaming([leaver.user.id, name])).not.toEqual([]);

  const deleted = await api.call('DELETE', '/users/me', { password: 'correct horse' }, leaver.token);
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(202);
  return { leaver, other, kept, othersRecipe };
}

describe('whatever a leaver had when they left', () => {
  it('nothing but the tombstone names them once erased, in the database or the shared store; a retry is 202', async () => {
    await fc.assert(
      fc.asyncProperty(leavingWorlds, async (world) => {
        const { leaver, other, kept, othersRecipe } = await leaveFrom(world);
        await completed(leaver.user.id);
        await expectOnlyTombstone(leaver, kept);
        expect(await redisKeysNaming([leaver.user.id, leaver.user.username])).toEqual([]);
        // Others' live words about them stay theirs, as the API shows them; nothing else is listed.
        const listed = (await api.call('GET', `/recipes/${othersRecipe}/comments`)).body.comments as Array<{
          id: string;
          content: string;
        }>;
        expect(listed.map((c) => [c.id, c.content])).toEqual(
          kept.map((id) => [id, `we miss @${leaver.user.username}`]),
        );
        // Erased and all, a retry of the deletion with the same token is answered as the first was.
        const retried = await api.call('DELETE', '/users/me', { password: 'correct horse' }, leaver.token);
        expect([retried.status, retried.body]).toEqual([202, { message: 'Account deletion started' }]);
        expect((await api.call('GET', '/users/me', undefined, other.token)).status).toBe(200);
      }),
      {
        numRuns: Number(process.env.LEAVING_RUNS ?? 6),
        ...(process.env.LEAVING_SEED ? { seed: Number(process.env.LEAVING_SEED) } : {}),
        // Each run is a whole deletion (a few seconds): a failure is reported as found, not shrunk for minutes.
        endOnFailure: true,
        // The first run has everything, the second nothing: the rest are drawn.
        examples: [[everything], [nothing]],
      },
    );
  }, 240_000);
});

describe('a service stopped during a deletion', () => {
  it('finishes its part once it is back', async () => {
    const leaver = await api.register('leaving_sid');
    const other = await api.register('leaving_oto');
    const recipe = (
      await created('POST', '/recipes', { title: 'Gone soon', cameraModel: 'X100V', filmSimulation: 'Acros' }, leaver)
    ).recipe.id;
    const theirs = (
      await created('POST', '/recipes', { title: 'Stays', cameraModel: 'X100V', filmSimulation: 'Acros' }, other)
    ).recipe.id;
    await created('POST', `/recipes/${theirs}/comments`, { content: `Hi @${other.user.username}` }, leaver);
    await created('POST', '/saved-items', { contentType: 'recipe', contentId: recipe }, other);
    await eventually(async () => ((await api.unreadCount(other)) === 1 ? true : undefined), 10_000);

    const comments = system.process('comments')!;
    await comments.kill('SIGTERM');
    expect((await api.call('DELETE', '/users/me', { password: 'correct horse' }, leaver.token)).status).toBe(202);
    // The others confirm; the stopped one cannot, so the deletion waits for it.
    await eventually(
      async () => ((await deletionOf(leaver.user.id))?.erasedBy.length === 3 ? true : undefined),
      30_000,
      100,
    );
    expect(await deletionOf(leaver.user.id)).toEqual({
      completedAt: null,
      erasedBy: ['collections', 'content', 'notifications'],
    });

    await comments.start();
    await completed(leaver.user.id);
    await expectOnlyTombstone(leaver);
    expect(await api.unreadCount(other)).toBe(0);
    const recipeNow = (await api.call('GET', `/recipes/${theirs}`)).body.recipe;
    expect(recipeNow.commentCount).toBe(0);
    const saved = await api.call('GET', `/users/${other.user.id}/saved-items`);
    expect(saved.body.pagination.total).toBe(0);
  }, 120_000);
});
