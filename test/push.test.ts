import { type LocalPushService, startLocalPushService } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { startTestSystem } from './support/system.js';

/**
 * Web Push through the gateway (docs/api.md §11.3): every built service as its own process, a browser-shaped
 * client subscribing at the local push service (libs/testing), which checks each push's VAPID header
 * against the key the API published, and decrypts it.
 */
let system: StartedSystem;
let api: string;
let pushService: LocalPushService;

beforeAll(async () => {
  pushService = await startLocalPushService();
  system = await startTestSystem({
    name: 'recipes_push',
    portOffset: 6700,
    env: { RATE_LIMIT_MAX: '100000', PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' },
  });
  api = `${system.urlOf('gateway')}/api`;
}, 60_000);
afterAll(async () => {
  await system?.stop();
  expect(pushService.violations).toEqual([]);
  await pushService?.close();
});

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
  user: { id: string; username: string };
  token: string;
}

let counter = 0;
async function register(name: string): Promise<Account> {
  const response = await call('POST', '/auth/register', {
    username: `${name}_${process.pid % 1000}_${(counter += 1)}`,
    password: 'correct horse',
  });
  expect(response.status).toBe(201);
  return response.body;
}

async function login(account: Account): Promise<Account> {
  const response = await call('POST', '/auth/login', { username: account.user.username, password: 'correct horse' });
  expect(response.status).toBe(200);
  return response.body;
}

/** A browser subscribing as docs/push.md shows: the API's key, then its subscription handed to the API. */
async function browserSubscribes(account: Account) {
  const { body } = await call('GET', '/push/public-key');
  const browser = pushService.subscribe(body.publicKey);
  const response = await call('POST', '/push/subscriptions', { ...browser, expirationTime: null }, account.token);
  expect(response.status).toBe(201);
  return browser;
}

async function mention(author: Account, mentioned: Account) {
  const recipe = await call(
    'POST',
    '/recipes',
    { title: 'Classic Chrome street', cameraModel: 'X100V', filmSimulation: 'Classic Chrome' },
    author.token,
  );
  const comment = await call(
    'POST',
    `/recipes/${recipe.body.recipe.id}/comments`,
    { content: `Look, @${mentioned.user.username}` },
    author.token,
  );
  expect(comment.status).toBe(201);
}

describe('Web Push through the gateway', () => {
  it('a mention arrives at the push service, decrypted, within a second, as the list shows it', async () => {
    const [ada, bob] = [await register('ada'), await register('bob')];
    const browser = await browserSubscribes(bob);
    const started = Date.now();
    await mention(ada, bob);
    const [push] = await pushService.waitFor(browser.id, 1, 1_000);
    expect(push!.receivedAt - started).toBeLessThan(1_000);
    const listed = await call('GET', '/notifications', undefined, bob.token);
    expect(push!.payload).toEqual({ notification: listed.body.data[0], unreadCount: 1 });
    expect(listed.body.data[0].actor.username).toBe(ada.user.username);
  });

  it('logging out ends the session’s subscription; another session’s still gets pushes', async () => {
    const [cy, dee] = [await register('cy'), await register('dee')];
    const phone = await browserSubscribes(dee);
    const laptopSession = await login(dee);
    const laptop = await browserSubscribes(laptopSession);
    expect((await call('POST', '/auth/logout', undefined, dee.token)).status).toBe(200);
    await expect
      .poll(
        async () =>
          (await call('GET', '/push/subscriptions', undefined, laptopSession.token)).body.subscriptions.map(
            (s: { endpoint: string }) => s.endpoint,
          ),
        { timeout: 1_000 },
      )
      .toEqual([laptop.endpoint]);
    await mention(cy, dee);
    await pushService.waitFor(laptop.id, 1, 2_000);
    expect(pushService.attempts(phone.id)).toBe(0);
  });

  it('a restart of the notifications service between storing and sending loses no push', async () => {
    const [eve, fay] = [await register('eve'), await register('fay')];
    const browser = await browserSubscribes(fay);
    // The first try fails and asks for 2 s: the push waits in the push outbox while the service restarts.
    pushService.answerNext(browser.id, { status: 503, retryAfterSeconds: 2 });
    await mention(eve, fay);
    await expect.poll(() => pushService.attempts(browser.id), { timeout: 2_000 }).toBe(1);
    await system.process('notifications').restart();
    const pushes = await pushService.waitFor(browser.id, 1, 10_000);
    expect(pushes).toHaveLength(1);
    expect((pushes[0]!.payload as { notification: { type: string } }).notification.type).toBe('mention_recipe_comment');
  }, 30_000);
});
