import { type LocalPushService, startLocalPushService } from '@recipes/testing';
import { type EventStreamClient, openEventStream, type StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { replyFlow } from './client/client.js';
import { unlimited } from './faults/support.js';
import { type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';

/**
 * Conversations (docs/api.md §11.4) as clients meet them: every service its own process behind the
 * gateway, events through the real broker, notification streams open. A comment on someone's recipe
 * that mentions a third user, a reply, and a reply to the reply: each user told once, by the right type,
 * on their open stream and as a Web Push; the thread one level deep; and its deletion retracting what it
 * caused.
 */
let system: StartedSystem;
let api: JsonCall;
let pushService: LocalPushService;
const streams: EventStreamClient[] = [];

beforeAll(async () => {
  pushService = await startLocalPushService();
  system = await startTestSystem({
    name: 'recipes_conversations',
    portOffset: 9370,
    env: { ...unlimited, PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' },
  });
  api = jsonClient(`${system.urlOf('gateway')}/api`);
}, 90_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await system?.stop();
  expect(pushService.violations).toEqual([]);
  await pushService?.close();
});

/** A browser of the account's subscribing to Web Push, as docs/push.md shows. */
async function browserOf(account: Account) {
  const browser = pushService.subscribe((await api('GET', '/push/public-key')).body.publicKey);
  expect((await api('POST', '/push/subscriptions', { ...browser, expirationTime: null }, account.token)).status).toBe(
    201,
  );
  return browser;
}

/** The types of the notifications pushed to `browser`, once `count` have come. */
const pushedTypes = async (browser: { id: string }, count: number) =>
  (await pushService.waitFor(browser.id, count, 5_000))
    .map((push) => (push.payload as { notification: { type: string } }).notification.type)
    .sort();

interface Account {
  user: { id: string; username: string };
  token: string;
}

async function register(username: string): Promise<Account> {
  const response = await api('POST', '/auth/register', { username, password: 'correct horse' });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** The account's stream, open and past its first unread count: what is stored from then on, it must show. */
async function streamOf(account: Account): Promise<EventStreamClient> {
  const client = await openEventStream(`${system.urlOf('gateway')}/api/notifications/stream`, {
    authorization: `Bearer ${account.token}`,
  });
  streams.push(client);
  expect(client.status).toBe(200);
  await client.next((event) => event.event === 'unread_count');
  return client;
}

async function comment(
  account: Account,
  path: string,
  content: string,
  parentId?: string,
): Promise<{ id: string; parentId: string | null; replyCount: number }> {
  const response = await api('POST', `${path}/comments`, { content, ...(parentId ? { parentId } : {}) }, account.token);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.comment;
}

interface Shown {
  id: string;
  type: string;
  commentId: string;
  actor: { id: string };
}

const notificationOn = (client: EventStreamClient, type: string, commentId: string) =>
  client.next(
    (event: StreamEvent) =>
      event.event === 'notification' &&
      JSON.parse(event.data).type === type &&
      JSON.parse(event.data).commentId === commentId,
  );
const shownOn = (client: EventStreamClient) =>
  client.received.filter((event) => event.event === 'notification').map((event) => JSON.parse(event.data) as Shown);
const listed = async (account: Account) =>
  ((await api('GET', '/notifications?limit=100', undefined, account.token)).body.data as Shown[]).map((n) => [
    n.type,
    n.commentId,
  ]);

describe('a conversation on a recipe', () => {
  it('tells the owner, the mentioned and each author replied to once, on their streams, one level deep', async () => {
    const [ada, bob, cy] = [await register('talk_ada'), await register('talk_bob'), await register('talk_cy')];
    const recipe = await api(
      'POST',
      '/recipes',
      { title: 'Golden hour', cameraModel: 'X-T5', filmSimulation: 'Classic Chrome' },
      bob.token,
    );
    const path = `/recipes/${recipe.body.recipe.id}`;
    const [adaStream, bobStream, cyStream] = [await streamOf(ada), await streamOf(bob), await streamOf(cy)];
    const [adaBrowser, bobBrowser, cyBrowser] = [await browserOf(ada), await browserOf(bob), await browserOf(cy)];

    const question = await comment(ada, path, `Which white balance, @${cy.user.username}?`);
    const answer = await comment(bob, path, 'Daylight, +2 red', question.id);
    const thanks = await comment(ada, path, 'Thanks!', answer.id);
    expect(answer.parentId).toBe(question.id);
    expect(thanks.parentId).toBe(question.id);

    const [bobsComment, cysMention, adasReply, bobsReply] = await Promise.all([
      notificationOn(bobStream, 'comment_recipe', question.id),
      notificationOn(cyStream, 'mention_recipe_comment', question.id),
      notificationOn(adaStream, 'reply_comment', answer.id),
      notificationOn(bobStream, 'reply_comment', thanks.id),
    ]);
    expect(JSON.parse(bobsComment.data).actor.id).toBe(ada.user.id);
    expect(JSON.parse(cysMention.data).actor.id).toBe(ada.user.id);
    expect(JSON.parse(adasReply.data).actor.id).toBe(bob.user.id);
    expect(JSON.parse(bobsReply.data).actor.id).toBe(ada.user.id);

    // Everything the three comments caused has arrived (the last of them above): each user has exactly theirs.
    expect(await listed(bob)).toEqual([
      ['reply_comment', thanks.id],
      ['comment_recipe', question.id],
    ]);
    expect(await listed(cy)).toEqual([['mention_recipe_comment', question.id]]);
    expect(await listed(ada)).toEqual([['reply_comment', answer.id]]);
    expect(shownOn(bobStream).map((n) => n.type)).toEqual(['comment_recipe', 'reply_comment']);
    // And each as a push to the user's browser.
    expect(await pushedTypes(bobBrowser, 2)).toEqual(['comment_recipe', 'reply_comment']);
    expect(await pushedTypes(cyBrowser, 1)).toEqual(['mention_recipe_comment']);
    expect(await pushedTypes(adaBrowser, 1)).toEqual(['reply_comment']);

    const topLevel = await api('GET', `${path}/comments?topLevel=true`);
    expect(topLevel.body.comments.map((c: { id: string; replyCount: number }) => [c.id, c.replyCount])).toEqual([
      [question.id, 2],
    ]);
    expect((await api('GET', `${path}/comments`)).body.total).toBe(3);
    const replies = await api('GET', `/comments/${question.id}/replies`);
    expect(replies.status).toBe(200);
    expect(replies.body.comments.map((c: { id: string }) => c.id)).toEqual([answer.id, thanks.id]);

    // The owner deletes the thread: what its comments caused is taken back, on the streams too.
    expect((await api('DELETE', `${path}/comments/${question.id}`, undefined, bob.token)).status).toBe(200);
    await Promise.all([
      adaStream.next((event) => event.event === 'retracted' && JSON.parse(event.data).id === adasReply.id),
      cyStream.next((event) => event.event === 'retracted' && JSON.parse(event.data).id === cysMention.id),
      bobStream.next((event) => event.event === 'retracted' && JSON.parse(event.data).id === bobsReply.id),
      bobStream.next((event) => event.event === 'retracted' && JSON.parse(event.data).id === bobsComment.id),
    ]);
    for (const account of [ada, bob, cy]) expect(await listed(account)).toEqual([]);
    expect((await api('GET', `/comments/${question.id}/replies`)).status).toBe(404);
  });

  it('tells the owner of a post and of a collection, and nobody of their own comment', async () => {
    const [dee, eve] = [await register('talk_dee'), await register('talk_eve')];
    const post = await api('POST', '/posts', { title: 'Street' }, eve.token);
    const collection = await api('POST', '/collections', { name: 'Favourites' }, eve.token);
    const eveStream = await streamOf(eve);
    const own = await comment(eve, `/posts/${post.body.post.id}`, 'My own');
    const onPost = await comment(dee, `/posts/${post.body.post.id}`, 'Nice');
    const onCollection = await comment(dee, `/collections/${collection.body.collection.id}`, 'Great picks');
    await Promise.all([
      notificationOn(eveStream, 'comment_post', onPost.id),
      notificationOn(eveStream, 'comment_collection', onCollection.id),
    ]);
    const types = await listed(eve);
    expect(types).toEqual(
      expect.arrayContaining([
        ['comment_post', onPost.id],
        ['comment_collection', onCollection.id],
      ]),
    );
    expect(types).toHaveLength(2);
    expect(types.some(([, commentId]) => commentId === own.id)).toBe(false);
  });
});

describe('the generated client', () => {
  it('replies to a comment and reads the thread and the reply notification, typed by the OpenAPI document', async () => {
    const { question, answer, topLevel, replies, notification, inbox } = await replyFlow(
      system.urlOf('gateway'),
      'talk_client',
    );
    expect(answer.parentId).toBe(question.id);
    expect(topLevel.map((comment) => [comment.id, comment.replyCount])).toEqual([[question.id, 1]]);
    expect(replies.map((comment) => comment.id)).toEqual([answer.id]);
    expect(notification).toMatchObject({ type: 'reply_comment', commentId: answer.id, contentType: 'recipe' });
    // The inbox reads the comment and its recipe by id, through the gateway.
    expect(inbox.comment).toEqual({ ...answer, targetType: 'recipe', targetId: notification.contentId });
    expect(inbox.recipes.map((recipe) => recipe.id)).toEqual([notification.contentId]);
  });
});
