import { eventually } from '@recipes/testing';
import { type EventStreamClient, openEventStream, type StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { muteFlow } from './client/client.js';
import { unlimited } from './faults/support.js';
import { withDatabase } from './support/database.js';
import { expectProblem, type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem, type TestSystem } from './support/system.js';
import { type Account, create, register } from './support/world.js';

/**
 * docs/api.md §10 (mutes, blocks, notification preferences) through the gateway, every service its own
 * process. What a block or a mute changes elsewhere arrives by events: each check waits until the pair's
 * state has reached the read model of every service that acts on it (a barrier, never a sleep), and
 * "nothing notified" is read once a notification of the same request to someone else has arrived.
 */
let system: TestSystem;
let call: JsonCall;
const streams: EventStreamClient[] = [];

beforeAll(async () => {
  system = await startTestSystem({ name: 'recipes_inbox_control', portOffset: 7850, env: unlimited });
  call = jsonClient(`${system.urlOf('gateway')}/api`);
}, 60_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await system?.stop();
});

let counter = 0;
const people = async (...names: string[]) => Promise.all(names.map((name) => register(call, `ic${++counter}_${name}`)));

interface Notification {
  id: string;
  type: string;
  actor: { id: string };
  commentId?: string;
  contentId: string;
}

async function inbox(account: Account) {
  const list = await call('GET', '/notifications?limit=100', undefined, account.token);
  const unread = await call('GET', '/notifications/unread-count', undefined, account.token);
  return {
    data: list.body.data as Notification[],
    total: list.body.pagination.total as number,
    unread: unread.body.count as number,
    etag: list.headers.get('etag'),
  };
}

/** Waits until `account` has a notification `match` accepts, and gives it. */
const arrives = (account: Account, match: (n: Notification) => boolean) =>
  eventually(async () => (await inbox(account)).data.find(match), 10_000, 50);

/** Waits until every service that acts on `user`'s mute or block of `target` holds the pair at `revision` at least. */
async function settled(
  user: Account,
  target: Account,
  revision: number,
  services = ['comments', 'content', 'notifications'],
) {
  await withDatabase(system.databaseUrl, (db) =>
    eventually(
      async () => {
        for (const schema of services) {
          const { rows } = await db.query(
            `SELECT revision FROM ${schema}.user_relations WHERE user_id = $1 AND target_id = $2`,
            [user.user.id, target.user.id],
          );
          if ((rows[0]?.revision ?? 0) < revision) return undefined;
        }
        return true;
      },
      10_000,
      50,
    ),
  );
}

const mentionsStored = (commentId: string, store: string) =>
  withDatabase(system.databaseUrl, async (db) =>
    (await db.query(`SELECT mentioned_user_id AS id FROM comments.${store} WHERE comment_id = $1`, [commentId])).rows
      .map((row) => row.id as string)
      .sort(),
  );

const tagsStored = (table: 'recipe_tags' | 'post_tags', id: string) =>
  withDatabase(system.databaseUrl, async (db) =>
    (
      await db.query(
        `SELECT user_id AS id FROM content.${table} WHERE ${table === 'recipe_tags' ? 'recipe_id' : 'post_id'} = $1`,
        [id],
      )
    ).rows
      .map((row) => row.id as string)
      .sort(),
  );

async function openStream(account: Account) {
  const stream = await openEventStream(`${system.urlOf('gateway')}/api/notifications/stream`, {
    authorization: `Bearer ${account.token}`,
  });
  streams.push(stream);
  await stream.next((event) => event.event === 'unread_count');
  return stream;
}

describe('mute and block endpoints', () => {
  it('serve the generated client: one user mutes another by name and lists their mutes', async () => {
    const { bob, muted, mutes, pagination } = await muteFlow(system.urlOf('gateway'), 'ic_client');
    expect(muted).toBe(true);
    expect(mutes).toEqual([bob]);
    expect(pagination).toMatchObject({ page: 1, total: 1, nextCursor: null });
  });

  it('are idempotent, refuse oneself (400) and nobody (404), and list most recent first', async () => {
    const [ada, bob, cy] = await people('ada', 'bob', 'cy');
    for (const kind of ['mute', 'block']) {
      const state = kind === 'mute' ? 'muted' : 'blocked';
      for (const id of [bob.user.username, bob.user.id])
        expect((await call('PUT', `/users/${id}/${kind}`, undefined, ada.token)).body).toEqual({ [state]: true });
      expect((await call('PUT', `/users/${cy.user.id}/${kind}`, undefined, ada.token)).body).toEqual({ [state]: true });
      expectProblem((await call('PUT', `/users/${ada.user.username}/${kind}`, undefined, ada.token)).raw, 400);
      expectProblem((await call('PUT', `/users/me/${kind}`, undefined, ada.token)).raw, 400);
      expectProblem((await call('PUT', `/users/nobody_${counter}_x/${kind}`, undefined, ada.token)).raw, 404);
      expectProblem((await call('PUT', `/users/${bob.user.id}/${kind}`)).raw, 401);
      const listed = await call('GET', `/users/me/${kind}s`, undefined, ada.token);
      expect(listed.body.users.map((user: { id: string }) => user.id)).toEqual([cy.user.id, bob.user.id]);
      expect(listed.headers.get('link')).toContain('rel="first"');
      for (let i = 0; i < 2; i++)
        expect((await call('DELETE', `/users/${cy.user.id}/${kind}`, undefined, ada.token)).body).toEqual({
          [state]: false,
        });
      expect((await call('GET', `/users/me/${kind}s`, undefined, ada.token)).body.pagination.total).toBe(1);
    }
  });
});

describe('a blocked user', () => {
  it('has what they caused the blocker retracted, live on an open stream, and cannot reach the blocker any way; unblocking restores nothing', async () => {
    const [ada, bob, cy, dee] = await people('ada', 'bob', 'cy', 'dee');
    const adaRecipe = await create(
      call,
      '/recipes',
      { title: 'Ada’s', cameraModel: 'X100V', filmSimulation: 'Acros' },
      ada,
      'recipe',
    );
    const adaPost = await create(call, '/posts', { title: 'Ada’s post' }, ada, 'post');
    const adaCollection = await create(call, '/collections', { name: 'Ada’s set' }, ada, 'collection');
    const cyRecipe = await create(
      call,
      '/recipes',
      { title: 'Cy’s', cameraModel: 'X-T5', filmSimulation: 'Velvia' },
      cy,
      'recipe',
    );

    // Before the block: bob mentions ada and tags her; both notify her, on her open stream too.
    const stream = await openStream(ada);
    const mention = await create<{ id: string }>(
      call,
      `/recipes/${cyRecipe.id}/comments`,
      { content: `@${ada.user.username} look` },
      bob,
      'comment',
    );
    const tag = await create(call, '/posts', { title: 'With Ada', taggedUsernames: [ada.user.username] }, bob, 'post');
    await arrives(ada, (n) => n.commentId === mention.id);
    await arrives(ada, (n) => n.contentId === tag.id);
    const fromCy = await create<{ id: string }>(
      call,
      `/recipes/${adaRecipe.id}/comments`,
      { content: `@${ada.user.username} from cy` },
      cy,
      'comment',
    );
    await arrives(ada, (n) => n.commentId === fromCy.id);
    const before = await inbox(ada);
    expect(before).toMatchObject({ total: 3, unread: 3 });
    const bobs = before.data.filter((n) => n.actor.id === bob.user.id).map((n) => n.id);
    for (const id of before.data.map((n) => n.id))
      await stream.next((event) => event.event === 'notification' && event.id === id);

    expect((await call('PUT', `/users/${bob.user.username}/block`, undefined, ada.token)).body).toEqual({
      blocked: true,
    });
    const isRetracted = (id: string) => (event: StreamEvent) =>
      event.event === 'retracted' && JSON.parse(event.data).id === id;
    for (const id of bobs) await stream.next(isRetracted(id));
    await stream.next((event) => event.event === 'unread_count' && JSON.parse(event.data).count === 1);
    const after = await inbox(ada);
    expect(after.data.map((n) => n.actor.id)).toEqual([cy.user.id]);
    expect(after).toMatchObject({ total: 1, unread: 1 });
    expect(after.etag).not.toBe(before.etag);
    const notModified = await call('GET', '/notifications?limit=100', undefined, ada.token, {
      'if-none-match': before.etag!,
    });
    expect(notModified.status).toBe(200);
    await settled(ada, bob, 1);

    // Comments on each kind of ada's content: 403, and nothing stored.
    for (const path of [`/recipes/${adaRecipe.id}`, `/posts/${adaPost.id}`, `/collections/${adaCollection.id}`]) {
      const refused = await call('POST', `${path}/comments`, { content: 'let me in' }, bob.token);
      expectProblem(refused.raw, 403);
      expect(
        (await call('GET', `${path}/comments`)).body.comments.some(
          (c: { author: { id: string } }) => c.author.id === bob.user.id,
        ),
      ).toBe(false);
    }
    // A mention elsewhere: the comment stands, the mention of ada is not stored; dee's is, and notifies dee.
    const elsewhere = await create<{ id: string; content: string }>(
      call,
      `/recipes/${cyRecipe.id}/comments`,
      { content: `@${ada.user.username} and @${dee.user.username}` },
      bob,
      'comment',
    );
    expect(elsewhere.content).toBe(`@${ada.user.username} and @${dee.user.username}`);
    expect(await mentionsStored(elsewhere.id, 'recipe_comment_mentions')).toEqual([dee.user.id]);
    // Tags on a recipe and on a post: published, ada not tagged; dee is.
    const taggedRecipe = await create(
      call,
      '/recipes',
      {
        title: 'Tagging',
        cameraModel: 'X-E4',
        filmSimulation: 'Eterna',
        taggedUsernames: [ada.user.username, dee.user.username],
      },
      bob,
      'recipe',
    );
    const taggedPost = await create(
      call,
      '/posts',
      { title: 'Tagging', taggedUsernames: [ada.user.username, dee.user.username] },
      bob,
      'post',
    );
    expect(await tagsStored('recipe_tags', taggedRecipe.id)).toEqual([dee.user.id]);
    expect(await tagsStored('post_tags', taggedPost.id)).toEqual([dee.user.id]);
    for (const id of [elsewhere.id, taggedRecipe.id, taggedPost.id])
      await arrives(dee, (n) => n.commentId === id || n.contentId === id);
    expect(await inbox(ada)).toMatchObject({ total: 1, unread: 1 });

    // Unblocked: nothing comes back; only what bob does afterwards notifies.
    expect((await call('DELETE', `/users/${bob.user.id}/block`, undefined, ada.token)).body).toEqual({
      blocked: false,
    });
    await settled(ada, bob, 2);
    const again = await create<{ id: string }>(
      call,
      `/recipes/${adaRecipe.id}/comments`,
      { content: `@${ada.user.username} back` },
      bob,
      'comment',
    );
    await arrives(ada, (n) => n.commentId === again.id);
    const restored = await inbox(ada);
    expect(restored.data.filter((n) => bobs.includes(n.id))).toEqual([]);
    expect(restored.total).toBe(2);
    expect((await call('GET', '/users/me/blocks', undefined, ada.token)).body.users).toEqual([]);
  });
});

describe('a muted user', () => {
  it('notifies the muter of nothing while muted, though their mentions are stored; earlier notifications stay', async () => {
    const [ada, cy, dee] = await people('ada', 'cy', 'dee');
    const recipe = await create(
      call,
      '/recipes',
      { title: 'Muted', cameraModel: 'X100V', filmSimulation: 'Provia' },
      dee,
      'recipe',
    );
    const earlier = await create<{ id: string }>(
      call,
      `/recipes/${recipe.id}/comments`,
      { content: `@${ada.user.username} hi` },
      cy,
      'comment',
    );
    await arrives(ada, (n) => n.commentId === earlier.id);

    expect((await call('PUT', `/users/${cy.user.id}/mute`, undefined, ada.token)).body).toEqual({ muted: true });
    await settled(ada, cy, 1, ['notifications']);
    const muted = await create<{ id: string }>(
      call,
      `/recipes/${recipe.id}/comments`,
      { content: `@${ada.user.username} @${dee.user.username} again` },
      cy,
      'comment',
    );
    expect(await mentionsStored(muted.id, 'recipe_comment_mentions')).toEqual([ada.user.id, dee.user.id].sort());
    const tagged = await create(
      call,
      '/posts',
      { title: 'Muted tag', taggedUsernames: [ada.user.username, dee.user.username] },
      cy,
      'post',
    );
    await arrives(dee, (n) => n.commentId === muted.id);
    await arrives(dee, (n) => n.contentId === tagged.id);
    expect((await inbox(ada)).data.map((n) => n.commentId)).toEqual([earlier.id]);
    // A muted user may still comment on the muter's content.
    const adaRecipe = await create(
      call,
      '/recipes',
      { title: 'Open', cameraModel: 'X100V', filmSimulation: 'Provia' },
      ada,
      'recipe',
    );
    await create(call, `/recipes/${adaRecipe.id}/comments`, { content: 'still welcome' }, cy, 'comment');

    expect((await call('DELETE', `/users/${cy.user.id}/mute`, undefined, ada.token)).body).toEqual({ muted: false });
    await settled(ada, cy, 2, ['notifications']);
    const unmuted = await create<{ id: string }>(
      call,
      `/recipes/${recipe.id}/comments`,
      { content: `@${ada.user.username} unmuted` },
      cy,
      'comment',
    );
    await arrives(ada, (n) => n.commentId === unmuted.id);
    expect((await inbox(ada)).total).toBe(2);
  });
});

describe('notification preferences', () => {
  it('are all on by default; a type turned off notifies nothing from then on, what was stored stays', async () => {
    const [ada, bob, dee] = await people('ada', 'bob', 'dee');
    const all = (await call('GET', '/notifications/preferences', undefined, ada.token)).body;
    expect(all).toEqual({
      types: {
        mention_recipe_comment: true,
        mention_collection_comment: true,
        mention_post_comment: true,
        tag_recipe: true,
        tag_post: true,
        reply_comment: true,
        comment_recipe: true,
        comment_post: true,
        comment_collection: true,
      },
    });
    const first = await create(call, '/posts', { title: 'Before', taggedUsernames: [ada.user.username] }, bob, 'post');
    await arrives(ada, (n) => n.contentId === first.id);

    const changed = await call('PUT', '/notifications/preferences', { types: { tag_post: false } }, ada.token);
    expect(changed.body).toEqual({ types: { ...all.types, tag_post: false } });
    expectProblem(
      (await call('PUT', '/notifications/preferences', { types: { tag_story: false } }, ada.token)).raw,
      400,
    );
    expectProblem((await call('PUT', '/notifications/preferences', { types: { tag_post: 'no' } }, ada.token)).raw, 400);
    expect((await call('GET', '/notifications/preferences', undefined, ada.token)).body).toEqual(changed.body);

    const off = await create(
      call,
      '/posts',
      { title: 'Off', taggedUsernames: [ada.user.username, dee.user.username] },
      bob,
      'post',
    );
    const recipe = await create(
      call,
      '/recipes',
      { title: 'On', cameraModel: 'X100V', filmSimulation: 'Acros', taggedUsernames: [ada.user.username] },
      bob,
      'recipe',
    );
    await arrives(dee, (n) => n.contentId === off.id);
    await arrives(ada, (n) => n.contentId === recipe.id);
    expect((await inbox(ada)).data.map((n) => n.contentId).sort()).toEqual([first.id, recipe.id].sort());
  });
});
