import { createEvent, newId, type SessionEnded, userSessionEnded } from '@recipes/contracts';
import { type LocalPushService, startLocalPushService } from '@recipes/testing';
import fc from 'fast-check';
import webPush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectProblem, type NotificationsHarness, notificationsHarness, type TestUser } from '../support.js';

/** Push subscriptions: `/api/push/...` (src/routes/push), as docs/api.md §11.3 sets them out. */
let harness: NotificationsHarness,
  strict: Awaited<ReturnType<NotificationsHarness['anotherApp']>>,
  pushService: LocalPushService;
const vapid = webPush.generateVAPIDKeys();
beforeAll(async () => {
  pushService = await startLocalPushService();
  harness = await notificationsHarness({
    PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
    PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true',
  });
  // The production setting: https only, no internal hosts.
  strict = await harness.anotherApp({ PUSH_ALLOW_PRIVATE_ENDPOINTS: 'false' });
});
afterAll(async () => {
  await harness?.close();
  await pushService?.close();
});

const subscribe = (user: { token: string }, payload: unknown, app = harness.app) =>
  app.inject({ method: 'POST', url: '/api/push/subscriptions', headers: bearer(user), payload: payload as object });
const listOf = async (user: { token: string }) =>
  (await harness.app.inject({ method: 'GET', url: '/api/push/subscriptions', headers: bearer(user) })).json()
    .subscriptions as { id: string; endpoint: string }[];
const goodKeys = () => pushService.subscribe().keys;
const publicEndpoint = (path = newId()) => `https://push.example.net/wpush/${path}`;

function sessionOf(user: TestUser) {
  const sessionId = newId();
  return {
    sessionId,
    token: harness.tokenFor({
      id: user.id,
      username: user.username,
      sessionId,
      issuedAt: Math.floor(Date.now() / 1000),
    }),
  };
}

describe('GET /api/push/public-key', () => {
  it('gives the VAPID application server key, without a token', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/push/public-key' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ publicKey: vapid.publicKey });
  });
});

describe('POST /api/push/subscriptions', () => {
  it('stores a subscription (201), replaces it for the same endpoint (200), and lists it', async () => {
    const ada = await harness.knownUser('Ada_Subscribes');
    const endpoint = publicEndpoint();
    const first = await subscribe(ada, { endpoint, keys: goodKeys() }, strict);
    expect(first.statusCode).toBe(201);
    expect(first.json().subscription).toEqual({ id: expect.any(String), endpoint, createdAt: expect.any(String) });
    const again = await subscribe(ada, { endpoint, keys: goodKeys(), expirationTime: null }, strict);
    expect(again.statusCode).toBe(200);
    expect(again.json().subscription.id).toBe(first.json().subscription.id);
    expect(await listOf(ada)).toEqual([again.json().subscription]);
  });

  it('keeps at most 10 per user: the oldest goes', async () => {
    const bob = await harness.knownUser('Bob_Many');
    const endpoints = Array.from({ length: 11 }, () => publicEndpoint());
    for (const endpoint of endpoints)
      expect((await subscribe(bob, { endpoint, keys: goodKeys() })).statusCode).toBe(201);
    const kept = (await listOf(bob)).map((s) => s.endpoint);
    expect(kept).toHaveLength(10);
    expect(kept).not.toContain(endpoints[0]);
    expect(kept).toContain(endpoints[10]);
  });

  it.each([
    ['http', 'http://push.example.net/x'],
    ['loopback', 'https://127.0.0.1/x'],
    ['loopback spelled in hex', 'https://0x7f.1/x'],
    ['localhost', 'https://localhost:8443/x'],
    ['a private address', 'https://10.1.2.3/x'],
    ['a private address (192.168)', 'https://192.168.0.10/x'],
    ['a link-local address', 'https://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'https://[::1]/x'],
    ['IPv6 unique local', 'https://[fd00::1]/x'],
    ['IPv6 link-local', 'https://[fe80::1]/x'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['not a URL', 'push me'],
    ['too long', `https://push.example.net/${'a'.repeat(2048)}`],
  ])('refuses %s as an endpoint with 400', async (_case, endpoint) => {
    const cy = await harness.knownUser(`Cy_${Math.random().toString(36).slice(2, 8)}`);
    expectProblem(await subscribe(cy, { endpoint, keys: goodKeys() }, strict), 400);
    expect(await listOf(cy)).toEqual([]);
  });

  it('refuses keys of the wrong length or form with 400, whatever they are', async () => {
    const dee = await harness.knownUser('Dee_Bad_Keys');
    const good = goodKeys();
    const badKey = fc.oneof(
      fc
        .uint8Array({ minLength: 0, maxLength: 100 })
        .filter((bytes) => bytes.length !== 65)
        .map((bytes) => Buffer.from(bytes).toString('base64url')),
      // 65 bytes, but not an uncompressed point of the curve.
      fc
        .uint8Array({ minLength: 65, maxLength: 65 })
        .map((bytes) => Buffer.from([bytes[0] === 4 ? 3 : bytes[0]!, ...bytes.slice(1)]).toString('base64url')),
      fc.string(),
    );
    const badAuth = fc.oneof(
      fc
        .uint8Array({ maxLength: 40 })
        .filter((bytes) => bytes.length !== 16)
        .map((bytes) => Buffer.from(bytes).toString('base64url')),
      fc.constant('not base64url!!!!!!!!!'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          badKey.map((p256dh) => ({ p256dh, auth: good.auth })),
          badAuth.map((auth) => ({ p256dh: good.p256dh, auth })),
        ),
        async (keys) => {
          expectProblem(await subscribe(dee, { endpoint: publicEndpoint(), keys }), 400);
        },
      ),
      { numRuns: 40 },
    );
    expectProblem(await subscribe(dee, { endpoint: publicEndpoint() }), 400);
    expect(await listOf(dee)).toEqual([]);
  });

  it('needs a token', async () => {
    expectProblem(
      await harness.app.inject({
        method: 'POST',
        url: '/api/push/subscriptions',
        payload: { endpoint: publicEndpoint(), keys: goodKeys() },
      }),
      401,
    );
    expectProblem(await harness.app.inject({ method: 'GET', url: '/api/push/subscriptions' }), 401);
  });
});

describe('DELETE /api/push/subscriptions/{id}', () => {
  it('deletes the caller’s own; another user’s or an unknown one is 404', async () => {
    const [eve, fay] = [await harness.knownUser('Eve_Deletes'), await harness.knownUser('Fay_Other')];
    const { id } = (await subscribe(eve, { endpoint: publicEndpoint(), keys: goodKeys() })).json().subscription;
    const remove = (user: TestUser, which: string) =>
      harness.app.inject({ method: 'DELETE', url: `/api/push/subscriptions/${which}`, headers: bearer(user) });
    expectProblem(await remove(fay, id), 404);
    expectProblem(await remove(eve, 'not-a-uuid'), 404);
    expect(await listOf(eve)).toHaveLength(1);
    expect((await remove(eve, id)).statusCode).toBe(200);
    expect(await listOf(eve)).toEqual([]);
    expectProblem(await remove(eve, id), 404);
  });
});

describe('a subscription and its session', () => {
  it('ends with the session that made it; the others stay', async () => {
    const gus = await harness.knownUser('Gus_Sessions');
    const [phone, laptop] = [sessionOf(gus), sessionOf(gus)];
    await subscribe(phone, { endpoint: publicEndpoint('phone'), keys: goodKeys() });
    await subscribe(laptop, { endpoint: publicEndpoint('laptop'), keys: goodKeys() });
    const data: SessionEnded = {
      userId: gus.id,
      sessionIds: [phone.sessionId],
      notBefore: null,
      reason: 'logout',
      endedAt: new Date().toISOString(),
      tokensExpireBy: new Date(Date.now() + 3_600_000).toISOString(),
    };
    await harness.hear(createEvent(userSessionEnded, data, { producer: 'users', correlationId: 'test-push-session' }));
    await expect
      .poll(async () => (await listOf(laptop)).map((s) => s.endpoint), { timeout: 1_000 })
      .toEqual([publicEndpoint('laptop')]);
  });
});
