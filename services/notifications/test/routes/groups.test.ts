import { commentMentionDeleted, createEvent, newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarness,
  tagEvent,
  type TestUser,
} from '../support.js';

/** docs/api.md §10.5: groupKey on every notification, the caller's groups, and marking a group read. */
let harness: NotificationsHarness;
let actors: TestUser[];
beforeAll(async () => {
  harness = await notificationsHarness();
  actors = await Promise.all(['Ada_G', 'Cy_G', 'Dee_G', 'Eli_G'].map((name) => harness.knownUser(name)));
});
afterAll(() => harness.close());

const get = (user: TestUser, url: string, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'GET', url, headers: { ...bearer(user), ...headers } });
const groupsOf = async (user: TestUser, query = '') => {
  const response = await get(user, `/api/notifications/groups${query}`);
  expect(response.statusCode).toBe(200);
  return response.json();
};
const markGroupRead = (user: TestUser, groupKey: string) =>
  harness.app.inject({
    method: 'POST',
    url: `/api/notifications/groups/${encodeURIComponent(groupKey)}/read`,
    headers: bearer(user),
  });
const at = (second: number) => ({
  createdAt: new Date(Date.parse('2026-04-01T00:00:00.000Z') + second * 1000).toISOString(),
});

/** Bob, mentioned on one recipe by four people (Ada twice), tagged on another, mentioned on a post: three groups. */
async function bobWithGroups() {
  const bob = await harness.knownUser(`Bob_G${newId().slice(-8)}`);
  const [ada, cy, dee, eli] = actors as [TestUser, TestUser, TestUser, TestUser];
  const recipe = newId();
  const mentions = [
    mentionEvent(ada, bob, 'recipe_comment', { targetId: recipe, ...at(1) }),
    mentionEvent(cy, bob, 'recipe_comment', { targetId: recipe, ...at(2) }),
    mentionEvent(dee, bob, 'recipe_comment', { targetId: recipe, ...at(3) }),
    mentionEvent(eli, bob, 'recipe_comment', { targetId: recipe, ...at(4) }),
    mentionEvent(ada, bob, 'recipe_comment', { targetId: recipe, ...at(5) }),
  ];
  const tag = tagEvent(cy, bob, 'recipe', { ...at(7) });
  const post = mentionEvent(dee, bob, 'post_comment', { ...at(6) });
  for (const event of [...mentions, tag, post]) await harness.deliver(event);
  return { bob, recipe, mentions, tag, post, ada, cy, dee, eli };
}

describe('groupKey', () => {
  it('is on every notification, the same for the same type on the same content, another for another type or content', async () => {
    const { bob, recipe, tag, post } = await bobWithGroups();
    const { data } = (await get(bob, '/api/notifications?limit=100')).json();
    expect(new Set(data.map((n: { groupKey: string }) => n.groupKey))).toEqual(
      new Set([
        `mention_recipe_comment:${recipe}`,
        `tag_recipe:${tag.data.contentId}`,
        `mention_post_comment:${(post.data as { targetId: string }).targetId}`,
      ]),
    );
    for (const n of data) expect(n.groupKey).toBe(`${n.type}:${n.contentId}`);
  });
});

describe('GET /api/notifications/groups', () => {
  it('answers each group with its counts, its three latest distinct actors and its latest notification, latest group first', async () => {
    const { bob, recipe, tag, post, ada, cy, dee, eli } = await bobWithGroups();
    const flat = (await get(bob, '/api/notifications?limit=100')).json().data as Array<{
      id: string;
      groupKey: string;
    }>;
    const latestOf = (groupKey: string) => flat.find((n) => n.groupKey === groupKey)!.id;
    const author = (user: TestUser) => ({ id: user.id, username: user.username, avatarUrl: null });
    const body = await groupsOf(bob);
    expect(body).toEqual({
      groups: [
        {
          groupKey: `tag_recipe:${tag.data.contentId}`,
          type: 'tag_recipe',
          contentType: 'recipe',
          contentId: tag.data.contentId,
          count: 1,
          unreadCount: 1,
          actors: [author(cy)],
          actorCount: 1,
          latestNotificationId: latestOf(`tag_recipe:${tag.data.contentId}`),
          latestAt: at(7).createdAt,
        },
        expect.objectContaining({
          groupKey: `mention_post_comment:${(post.data as { targetId: string }).targetId}`,
          count: 1,
          actors: [author(dee)],
          latestAt: at(6).createdAt,
        }),
        {
          groupKey: `mention_recipe_comment:${recipe}`,
          type: 'mention_recipe_comment',
          contentType: 'recipe',
          contentId: recipe,
          count: 5,
          unreadCount: 5,
          // Ada's second mention is the latest: she comes first, once.
          actors: [author(ada), author(eli), author(dee)],
          actorCount: 4,
          latestNotificationId: latestOf(`mention_recipe_comment:${recipe}`),
          latestAt: at(5).createdAt,
        },
      ],
      pagination: { page: 1, limit: 20, total: 3, totalPages: 1, nextCursor: null },
    });
  });

  it('leaves retracted notifications out: of the counts and actors, and a group all retracted is gone', async () => {
    const { bob, recipe, mentions, post } = await bobWithGroups();
    const retract = (event: (typeof mentions)[number]) =>
      harness.deliver(
        createEvent(
          commentMentionDeleted,
          { ...(event.data as never), deletedAt: new Date().toISOString() },
          { producer: 'comments', correlationId: 'r' },
        ),
      );
    await retract(mentions[4]!); // Ada's latest
    await retract(mentions[3]!); // Eli's only
    await retract(post);
    const { groups, pagination } = await groupsOf(bob);
    expect(pagination.total).toBe(2);
    const onRecipe = groups.find((g: { groupKey: string }) => g.groupKey === `mention_recipe_comment:${recipe}`);
    expect(onRecipe).toMatchObject({ count: 3, unreadCount: 3, actorCount: 3, latestAt: at(3).createdAt });
    expect(onRecipe.actors.map((a: { username: string }) => a.username)).toEqual(['Dee_G', 'Cy_G', 'Ada_G']);
  });

  it('with unread=true keeps the groups with an unread notification; pages by cursor with Link, and refuses a cursor of another list', async () => {
    const { bob, recipe } = await bobWithGroups();
    const tagGroup = (await groupsOf(bob)).groups[0].groupKey;
    expect((await markGroupRead(bob, tagGroup)).json()).toEqual({
      message: 'Notifications marked as read',
      updated: 1,
    });
    const unread = await groupsOf(bob, '?unread=true');
    expect(unread.groups.map((g: { groupKey: string }) => g.groupKey)).not.toContain(tagGroup);
    expect(unread.pagination.total).toBe(2);

    const first = await get(bob, '/api/notifications/groups?limit=1&unread=true');
    const { nextCursor } = first.json().pagination;
    expect(first.headers.link).toContain(
      `</api/notifications/groups?limit=1&unread=true&cursor=${nextCursor}>; rel="next"`,
    );
    const second = await groupsOf(bob, `?limit=1&unread=true&cursor=${nextCursor}`);
    expect(second.groups.map((g: { groupKey: string }) => g.groupKey)).toEqual([`mention_recipe_comment:${recipe}`]);
    expect(second.pagination).toMatchObject({ page: null, nextCursor: null, total: 2 });

    const flatCursor = (await get(bob, '/api/notifications?limit=1')).json().pagination.nextCursor;
    for (const cursor of [flatCursor, 'nope'])
      expect(expectProblem(await get(bob, `/api/notifications/groups?cursor=${cursor}`), 400).code).toBe(
        'VALIDATION_ERROR',
      );
    expectProblem(await get(bob, '/api/notifications/groups?unread=maybe'), 400);
  });

  it('has ETags bound to the caller, of their own per page and filter, that follow a new notification and a read', async () => {
    const { bob, recipe, ada } = await bobWithGroups();
    const urls = [
      '/api/notifications/groups',
      '/api/notifications/groups?unread=true',
      '/api/notifications/groups?limit=1',
      '/api/notifications',
    ];
    const tags = await Promise.all(urls.map(async (url) => (await get(bob, url)).headers.etag as string));
    expect(new Set(tags).size).toBe(urls.length);
    expect((await get(bob, urls[0]!, { 'if-none-match': tags[0]! })).statusCode).toBe(304);
    expect((await get(bob, urls[0]!, { 'if-none-match': tags[3]! })).statusCode).toBe(200);
    const eve = await harness.knownUser(`Eve_G${newId().slice(-8)}`);
    expect((await get(eve, urls[0]!, { 'if-none-match': tags[0]! })).statusCode).toBe(200);

    await harness.deliver(mentionEvent(ada, bob, 'recipe_comment', { targetId: recipe, ...at(9) }));
    expect((await get(bob, urls[0]!, { 'if-none-match': tags[0]! })).statusCode).toBe(200);
    const current = (await get(bob, urls[0]!)).headers.etag as string;
    await markGroupRead(bob, `mention_recipe_comment:${recipe}`);
    expect((await get(bob, urls[0]!, { 'if-none-match': current })).statusCode).toBe(200);
  });
});

describe('POST /api/notifications/groups/{groupKey}/read', () => {
  it('marks every unread notification of the group read, once, and the unread count follows', async () => {
    const { bob, recipe } = await bobWithGroups();
    const unreadCount = async () => (await get(bob, '/api/notifications/unread-count')).json().count;
    expect(await unreadCount()).toBe(7);
    expect((await markGroupRead(bob, `mention_recipe_comment:${recipe}`)).json()).toEqual({
      message: 'Notifications marked as read',
      updated: 5,
    });
    expect(await unreadCount()).toBe(2);
    expect((await markGroupRead(bob, `mention_recipe_comment:${recipe}`)).json().updated).toBe(0);
    const { data } = (await get(bob, '/api/notifications?limit=100')).json();
    expect(data.filter((n: { isRead: boolean }) => n.isRead).map((n: { groupKey: string }) => n.groupKey)).toEqual(
      Array(5).fill(`mention_recipe_comment:${recipe}`),
    );
  });

  it('answers 404 for another user’s group, an unknown one or something that is no group key, and changes nothing', async () => {
    const { bob, recipe } = await bobWithGroups();
    const eve = await harness.knownUser(`Eve_G${newId().slice(-8)}`);
    for (const groupKey of [
      `mention_recipe_comment:${recipe}`,
      `tag_post:${newId()}`,
      'nope',
      `mention_recipe_comment:${recipe.toUpperCase()}`,
    ]) {
      expect(expectProblem(await markGroupRead(eve, groupKey), 404).code).toBe('NOT_FOUND');
    }
    expect((await get(bob, '/api/notifications/unread-count')).json().count).toBe(7);
  });

  it('needs a token', async () => {
    expect(
      (await harness.app.inject({ method: 'POST', url: `/api/notifications/groups/tag_post:${newId()}/read` }))
        .statusCode,
    ).toBe(401);
    expect((await harness.app.inject({ method: 'GET', url: '/api/notifications/groups' })).statusCode).toBe(401);
  });
});
