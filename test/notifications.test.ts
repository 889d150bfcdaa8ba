import { eventually } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { startTestSystem } from './support/system.js';

/**
 * Mentions and tags, from a client's point of view: every built service as its own process behind the
 * gateway, events through the real broker. A notification shows within one second, and only once.
 */
let system: StartedSystem;
let api: string;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_notifications',
    portOffset: 2200,
    // The polling below asks more often than the gateway's default limit per address allows.
    env: { RATE_LIMIT_MAX: '100000' },
  });
  api = `${system.urlOf('gateway')}/api`;
}, 60_000);
afterAll(() => system?.stop());

async function call(method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

interface Account {
  user: { id: string; username: string; avatarUrl: string | null };
  token: string;
}

async function register(username: string): Promise<Account> {
  const response = await call('POST', '/auth/register', { username, password: 'correct horse' });
  expect(response.status).toBe(201);
  return response.body;
}

async function created<T>(path: string, body: unknown, author: Account, key: string): Promise<T> {
  const response = await call('POST', path, body, author.token);
  expect(response.status).toBe(201);
  return response.body[key];
}

interface Notification {
  id: string;
  type: string;
  actor: { id: string; username: string; avatarUrl: string | null };
  contentType: string;
  contentId: string;
  commentId?: string;
  isRead: boolean;
  createdAt: string;
}

async function notificationsOf(account: Account): Promise<Notification[]> {
  const response = await call('GET', '/notifications?limit=100', undefined, account.token);
  expect(response.status).toBe(200);
  return response.body.data;
}

/**
 * Runs `act`, then polls the recipient's notifications until `matches` finds one, failing after one
 * second from the start of `act`; then waits a little and checks that exactly one ever came.
 */
async function exactlyOneWithinASecond(
  recipient: Account,
  act: () => Promise<unknown>,
  matches: (n: Notification, acted: unknown) => boolean,
) {
  const started = Date.now();
  const acted = await act();
  let found: Notification[] = [];
  while (found.length === 0 && Date.now() - started <= 1_000) {
    found = (await notificationsOf(recipient)).filter((n) => matches(n, acted));
    if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(found, 'a notification within one second').toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect((await notificationsOf(recipient)).filter((n) => matches(n, acted))).toHaveLength(1);
  return { notification: found[0]!, acted };
}

let ada: Account;
let bob: Account;
beforeAll(async () => {
  [ada, bob] = await Promise.all([register('notify_ada'), register('notify_bob')]);
});

const recipeDraft = { title: 'Classic Chrome street', cameraModel: 'X100V', filmSimulation: 'Classic Chrome' };

describe('mentions in comments', () => {
  const targets = [
    [
      'recipes',
      'mention_recipe_comment',
      'recipe',
      () => created<{ id: string }>('/recipes', recipeDraft, ada, 'recipe'),
    ],
    [
      'collections',
      'mention_collection_comment',
      'collection',
      () => created<{ id: string }>('/collections', { name: 'Night shots' }, ada, 'collection'),
    ],
    [
      'posts',
      'mention_post_comment',
      'post',
      () => created<{ id: string }>('/posts', { title: 'Harbour at dusk' }, ada, 'post'),
    ],
  ] as const;

  it.each(targets)(
    'on %s tell the mentioned user once, within a second, as %s',
    async (kind, type, contentType, createTarget) => {
      const target = await createTarget();
      const { notification, acted } = await exactlyOneWithinASecond(
        bob,
        () =>
          created<{ id: string }>(
            `/${kind}/${target.id}/comments`,
            { content: `What do you think, @${bob.user.username.toUpperCase()}?` },
            ada,
            'comment',
          ),
        (n, comment) => n.commentId === (comment as { id: string }).id,
      );
      expect(notification).toEqual({
        id: expect.any(String),
        type,
        actor: ada.user,
        contentType,
        contentId: target.id,
        commentId: (acted as { id: string }).id,
        isRead: false,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        // Its group: the same type on the same content (docs/api.md §10.5).
        groupKey: `${type}:${target.id}`,
      });
    },
  );

  it('tells nobody about a mention of oneself', async () => {
    const recipe = await created<{ id: string }>('/recipes', recipeDraft, ada, 'recipe');
    const comment = await created<{ id: string }>(
      `/recipes/${recipe.id}/comments`,
      { content: `Note to self, @${ada.user.username}` },
      ada,
      'comment',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await notificationsOf(ada)).filter((n) => n.commentId === comment.id)).toEqual([]);
  });
});

describe('tags', () => {
  it.each([
    ['recipes', 'recipe', 'tag_recipe', recipeDraft],
    ['posts', 'post', 'tag_post', { title: 'Tagged post' }],
  ] as const)(
    'in %s tell each tagged user once, within a second, and never the author',
    async (path, key, type, draft) => {
      const { notification, acted } = await exactlyOneWithinASecond(
        bob,
        () =>
          created<{ id: string }>(
            `/${path}`,
            { ...draft, taggedUsernames: [bob.user.username, 'nobody_at_all', ada.user.username] },
            ada,
            key,
          ),
        (n, content) => n.contentId === (content as { id: string }).id,
      );
      expect(notification).toMatchObject({ type, actor: ada.user, contentType: key, isRead: false });
      expect(notification).not.toHaveProperty('commentId');
      expect((await notificationsOf(ada)).filter((n) => n.contentId === (acted as { id: string }).id)).toEqual([]);
    },
  );
});

describe('reading notifications', () => {
  it('counts the unread ones and marks them read, for their recipient only', async () => {
    const cy = await register('notify_cy');
    for (const title of ['First', 'Second'])
      await created('/posts', { title, taggedUsernames: [cy.user.username] }, ada, 'post');
    const received = await eventually(async () => {
      const found = await notificationsOf(cy);
      return found.length === 2 ? found : undefined;
    });
    expect((await call('GET', '/notifications/unread-count', undefined, cy.token)).body).toEqual({ count: 2 });

    const ids = received.map((n) => n.id);
    expect((await call('PATCH', '/notifications/read', { notificationIds: ids }, ada.token)).body).toEqual({
      message: 'Notifications marked as read',
      updated: 0,
    });
    expect((await call('PATCH', '/notifications/read', { notificationIds: ids }, cy.token)).body).toEqual({
      message: 'Notifications marked as read',
      updated: 2,
    });
    expect((await call('GET', '/notifications/unread-count', undefined, cy.token)).body).toEqual({ count: 0 });
    expect((await notificationsOf(cy)).map((n) => n.isRead)).toEqual([true, true]);
  });

  it('asks for a token', async () => {
    expect((await call('GET', '/notifications')).status).toBe(401);
    expect((await call('GET', '/notifications/unread-count')).status).toBe(401);
    expect((await call('PATCH', '/notifications/read', { notificationIds: [] })).status).toBe(401);
  });
});
