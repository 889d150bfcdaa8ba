import { eventually } from '@recipes/testing';
import { type EventStreamClient, openEventStream, type StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { unlimited } from './faults/support.js';
import { expectProblem, type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';
import { type Account, create, register } from './support/world.js';

/**
 * docs/api.md §10.2 and §10.5 through the gateway, every service its own process: the flat list's
 * filters, and grouped notifications (groupKey on the list and on the stream, the groups, marking a group read).
 */
let system: StartedSystem;
let call: JsonCall;
let stream: EventStreamClient | undefined;
let ada: Account;
let bob: Account;
let cy: Account;
let dee: Account;
let eli: Account;
let recipeId: string;
let postId: string;

interface Notification {
  id: string;
  type: string;
  groupKey: string;
  contentId: string;
  isRead: boolean;
}

const listOf = async (account: Account, query = '') => {
  const response = await call('GET', `/notifications${query}`, undefined, account.token);
  expect(response.status).toBe(200);
  return response.body as { data: Notification[]; pagination: { total: number; nextCursor: string | null } };
};
const groupsOf = async (account: Account, query = '') => {
  const response = await call('GET', `/notifications/groups${query}`, undefined, account.token);
  expect(response.status).toBe(200);
  return response.body;
};
const unreadOf = async (account: Account) =>
  (await call('GET', '/notifications/unread-count', undefined, account.token)).body.count as number;
const settled = (account: Account, total: number) =>
  eventually(async () => ((await listOf(account)).pagination.total === total ? true : undefined), 10_000, 50);

beforeAll(async () => {
  system = await startTestSystem({ name: 'recipes_notification_groups', portOffset: 7750, env: unlimited });
  call = jsonClient(`${system.urlOf('gateway')}/api`);
  [ada, bob, cy, dee, eli] = await Promise.all(
    ['ada', 'bob', 'cy', 'dee', 'eli'].map((name) => register(call, `groups_${name}`)),
  );
  recipeId = (
    await create(call, '/recipes', { title: 'Grouped', cameraModel: 'X100V', filmSimulation: 'Acros' }, ada, 'recipe')
  ).id;
  // Bob: mentioned on ada's recipe by cy, dee, eli, then cy again; tagged by ada on a post.
  for (const author of [cy, dee, eli, cy])
    await create(call, `/recipes/${recipeId}/comments`, { content: `@${bob.user.username} look` }, author, 'comment');
  postId = (await create(call, '/posts', { title: 'Tagged', taggedUsernames: [bob.user.username] }, ada, 'post')).id;
  await settled(bob, 5);
}, 120_000);
afterAll(async () => {
  stream?.close();
  await system?.stop();
});

describe('filters on notifications through the gateway', () => {
  it('unread=true and types=… keep what they name, total what they keep, combine with cursors, and have validators of their own', async () => {
    const all = await listOf(bob, '?limit=100');
    const mentionIds = all.data.filter((n) => n.type === 'mention_recipe_comment').map((n) => n.id);
    expect(mentionIds).toHaveLength(4);
    expect((await call('PATCH', '/notifications/read', { notificationIds: [mentionIds[0]] }, bob.token)).status).toBe(
      200,
    );

    const unread = await listOf(bob, '?unread=true&limit=100');
    expect(unread.data.map((n) => n.id)).toEqual(all.data.map((n) => n.id).filter((id) => id !== mentionIds[0]));
    expect(unread.pagination.total).toBe(4);
    const tags = await listOf(bob, '?types=tag_post');
    expect(tags.data.map((n) => n.type)).toEqual(['tag_post']);
    expect(tags.pagination.total).toBe(1);

    // By cursor, one at a time, through the Link header: the unread mentions, newest first.
    const walked: string[] = [];
    let next: string | undefined = '/api/notifications?types=mention_recipe_comment&unread=true&limit=1';
    while (next) {
      const response = await call('GET', next.slice('/api'.length), undefined, bob.token);
      expect(response.body.pagination.total).toBe(3);
      walked.push(...response.body.data.map((n: Notification) => n.id));
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      if (next) expect(next).toContain('types=mention_recipe_comment&unread=true&limit=1&cursor=');
    }
    expect(walked).toEqual(mentionIds.slice(1));

    const tagOf = async (query: string) =>
      (await call('GET', `/notifications${query}`, undefined, bob.token)).headers.get('etag')!;
    const [plain, onlyUnread, onlyTags] = await Promise.all(['', '?unread=true', '?types=tag_post'].map(tagOf));
    expect(new Set([plain, onlyUnread, onlyTags]).size).toBe(3);
    expect(
      (await call('GET', '/notifications?unread=true', undefined, bob.token, { 'if-none-match': onlyUnread })).status,
    ).toBe(304);
    expect(
      (await call('GET', '/notifications?unread=true', undefined, bob.token, { 'if-none-match': plain })).status,
    ).toBe(200);

    for (const query of ['?types=nope', '?types=tag_post,mention_everything', '?types=', '?unread=sometimes']) {
      const response = await call('GET', `/notifications${query}`, undefined, bob.token);
      expectProblem(response.raw, 400, query);
      expect(response.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await call('POST', '/notifications/read-all', undefined, bob.token)).status).toBe(200);
  });
});

describe('grouped notifications through the gateway', () => {
  it('gives every notification its groupKey, the same type on the same content sharing one', async () => {
    const { data } = await listOf(bob, '?limit=100');
    for (const n of data) expect(n.groupKey).toBe(`${n.type}:${n.contentId}`);
    expect(new Set(data.map((n) => n.groupKey))).toEqual(
      new Set([`mention_recipe_comment:${recipeId}`, `tag_post:${postId}`]),
    );
  });

  it('lists the groups latest first, with counts and three distinct actors most recent first, and leaves a retracted notification out', async () => {
    const body = await groupsOf(bob);
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1, nextCursor: null });
    const [tag, mentions] = body.groups;
    expect(tag).toMatchObject({
      groupKey: `tag_post:${postId}`,
      type: 'tag_post',
      contentType: 'post',
      contentId: postId,
      count: 1,
      actorCount: 1,
      actors: [{ id: ada.user.id }],
    });
    expect(mentions).toMatchObject({
      groupKey: `mention_recipe_comment:${recipeId}`,
      contentType: 'recipe',
      contentId: recipeId,
      count: 4,
      actorCount: 3,
    });
    expect(mentions.actors.map((actor: { id: string }) => actor.id)).toEqual([cy.user.id, eli.user.id, dee.user.id]);
    const flat = (await listOf(bob, '?limit=100')).data;
    expect(mentions.latestNotificationId).toBe(flat.find((n) => n.groupKey === mentions.groupKey)!.id);

    // Eli deletes their comment: its mention is retracted, and the group no longer counts it.
    const comments = (await call('GET', `/recipes/${recipeId}/comments`)).body.comments as Array<{
      id: string;
      author: { id: string };
    }>;
    const elis = comments.find((comment) => comment.author.id === eli.user.id)!;
    expect((await call('DELETE', `/recipes/${recipeId}/comments/${elis.id}`, undefined, eli.token)).status).toBe(200);
    await settled(bob, 4);
    const after = (await groupsOf(bob)).groups.find(
      (group: { groupKey: string }) => group.groupKey === mentions.groupKey,
    );
    expect(after).toMatchObject({ count: 3, actorCount: 2 });
    expect(after.actors.map((actor: { id: string }) => actor.id)).toEqual([cy.user.id, dee.user.id]);
  });

  it(
    'marks a group read: the unread count and an open stream follow; the ' +
      'stream’s notifications carry groupKey; another’s or an unknown group is 404',
    async () => {
      stream = await openEventStream(`${system.urlOf('gateway')}/api/notifications/stream`, {
        authorization: `Bearer ${bob.token}`,
      });
      const isUnread = (count: number) => (event: StreamEvent) =>
        event.event === 'unread_count' && JSON.parse(event.data).count === count;
      await stream.next(isUnread(await unreadOf(bob)));
      // A new mention: on the stream with its group.
      await create(call, `/recipes/${recipeId}/comments`, { content: `@${bob.user.username} again` }, dee, 'comment');
      const sent = JSON.parse((await stream.next((event) => event.event === 'notification', 5_000)).data);
      expect(sent.groupKey).toBe(`mention_recipe_comment:${recipeId}`);
      await stream.next(isUnread(1));

      const groupKey = `mention_recipe_comment:${recipeId}`;
      const etag = (await call('GET', '/notifications/groups', undefined, bob.token)).headers.get('etag')!;
      const marked = await call('POST', `/notifications/groups/${groupKey}/read`, undefined, bob.token);
      expect(marked.body).toEqual({ message: 'Notifications marked as read', updated: 1 });
      await stream.next(isUnread(0));
      expect(await unreadOf(bob)).toBe(0);
      expect((await call('GET', '/notifications/groups', undefined, bob.token, { 'if-none-match': etag })).status).toBe(
        200,
      );

      for (const [who, key] of [
        [ada, groupKey],
        [bob, `tag_recipe:${recipeId}`],
        [bob, 'not-a-group'],
      ] as const) {
        const response = await call('POST', `/notifications/groups/${key}/read`, undefined, who.token);
        expectProblem(response.raw, 404, key);
      }
      // Another user's tag never earns a 304 of bob's groups.
      const bobsTag = (await call('GET', '/notifications/groups', undefined, bob.token)).headers.get('etag')!;
      expect(
        (await call('GET', '/notifications/groups', undefined, ada.token, { 'if-none-match': bobsTag })).status,
      ).toBe(200);
      expect(
        (await call('GET', '/notifications/groups', undefined, bob.token, { 'if-none-match': bobsTag })).status,
      ).toBe(304);
    },
  );

  it('is walked by cursor while its groups move, up and down: each group seen once, in the order they stood in as the walk began', async () => {
    const fay = await register(call, 'groups_fay');
    const recipes: string[] = [];
    for (const title of ['Walk 1', 'Walk 2', 'Walk 3', 'Walk 4'])
      recipes.push(
        (await create(call, '/recipes', { title, cameraModel: 'X100V', filmSimulation: 'Acros' }, ada, 'recipe')).id,
      );
    const mention = (recipe: string, author: Account) =>
      create(call, `/recipes/${recipe}/comments`, { content: `@${fay.user.username} walk` }, author, 'comment');
    for (const recipe of recipes) await mention(recipe, cy);
    const [w1, w2, w3, w4] = recipes.map((recipe) => `mention_recipe_comment:${recipe}`) as [
      string,
      string,
      string,
      string,
    ];
    // Dee's mention puts Walk 3 first: the groups stand 3, 4, 2, 1.
    const lifted = await mention(recipes[2]!, dee);
    await settled(fay, 5);
    const first = await groupsOf(fay, '?limit=1');
    expect(first.groups.map((group: { groupKey: string }) => group.groupKey)).toEqual([w3]);

    // Meanwhile Walk 3 goes down (dee's comment deleted: its latest is cy's again, older than Walk 4's) and
    // Walk 1 up (a new mention): a walk by the groups' current places would show Walk 3 twice and Walk 1 never.
    expect((await call('DELETE', `/recipes/${recipes[2]}/comments/${lifted.id}`, undefined, dee.token)).status).toBe(
      200,
    );
    await mention(recipes[0]!, dee);
    const countsOf = async () =>
      new Map(
        ((await groupsOf(fay)).groups as Array<{ groupKey: string; count: number }>).map((group) => [
          group.groupKey,
          group.count,
        ]),
      );
    await eventually(
      async () => {
        const counts = await countsOf();
        return counts.get(w1) === 2 && counts.get(w3) === 1 ? true : undefined;
      },
      10_000,
      50,
    );

    const seen: string[] = [first.groups[0].groupKey];
    for (let cursor = first.pagination.nextCursor; cursor;) {
      const page = await groupsOf(fay, `?limit=1&cursor=${cursor}`);
      seen.push(...page.groups.map((group: { groupKey: string }) => group.groupKey));
      cursor = page.pagination.nextCursor;
    }
    expect(seen).toEqual([w3, w4, w2, w1]);
    // The next walk starts from where the groups stand now.
    expect((await groupsOf(fay)).groups.map((group: { groupKey: string }) => group.groupKey)).toEqual([w1, w4, w3, w2]);
  });
});
