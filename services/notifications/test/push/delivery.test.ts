import { commentMentionDeleted, createEvent } from '@recipes/contracts';
import { type LocalPushService, startLocalPushService } from '@recipes/testing';
import webPush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicOf } from '../../src/push/send.js';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  tagEvent,
  type TestUser,
} from '../support.js';

/**
 * The push sender (src/push), from the storing of a notification to the local push service (libs/testing),
 * which checks each push's VAPID header and decrypts it: what docs/api.md §11.3 promises of delivery.
 */
let harness: NotificationsHarness, pushService: LocalPushService, actor: TestUser;
const vapid = webPush.generateVAPIDKeys();
beforeAll(async () => {
  pushService = await startLocalPushService();
  ({
    harness,
    users: [actor],
  } = await notificationsHarnessWith(['Ada_Pushes'], {
    PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
    PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true',
    PUSH_TTL_SECONDS: '60',
  }));
});
afterAll(async () => {
  await harness?.close();
  expect(pushService.violations).toEqual([]);
  await pushService?.close();
});

/** A user with one browser subscribed, as the browser would subscribe with the service's key. */
async function subscribed(username: string) {
  const user = await harness.knownUser(username);
  const browser = pushService.subscribe(vapid.publicKey);
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/push/subscriptions',
    headers: bearer(user),
    payload: browser,
  });
  expect(response.statusCode).toBe(201);
  return { user, browser, subscriptionId: response.json().subscription.id as string };
}
const listOf = async (user: TestUser) =>
  (await harness.app.inject({ method: 'GET', url: '/api/notifications', headers: bearer(user) })).json().data;
const subscriptionsOf = async (user: TestUser) =>
  (await harness.app.inject({ method: 'GET', url: '/api/push/subscriptions', headers: bearer(user) })).json()
    .subscriptions;
const payloadOf = (push: { payload: unknown }) =>
  push.payload as { notification: { id: string; type: string }; unreadCount: number };

describe('a notification stored', () => {
  it('arrives as a decrypted push with the notification as the list shows it, its unread count, TTL, urgency and topic', async () => {
    const { user, browser } = await subscribed('Bob_Pushed');
    await harness.deliver(mentionEvent(actor, user));
    const [push] = await pushService.waitFor(browser.id, 1, 1_000);
    const [listed] = await listOf(user);
    expect(push!.payload).toEqual({ notification: listed, unreadCount: 1 });
    expect(push!.urgency).toBe('normal');
    expect(push!.topic).toBe(topicOf(listed.groupKey));
    expect(push!.ttl).toBeGreaterThan(50);
    expect(push!.ttl).toBeLessThanOrEqual(60);
  });

  it('is not pushed when its type is turned off', async () => {
    const { user, browser } = await subscribed('Cy_Turned_Off');
    await harness.app.inject({
      method: 'PUT',
      url: '/api/notifications/preferences',
      headers: bearer(user),
      payload: { types: { mention_recipe_comment: false } },
    });
    await harness.deliver(mentionEvent(actor, user));
    // A tag after it, still on: once its push came, the mention's would have come before it.
    await harness.deliver(tagEvent(actor, user, 'post'));
    await pushService.waitFor(browser.id, 1, 2_000);
    expect(pushService.received(browser.id).map((push) => payloadOf(push).notification.type)).toEqual(['tag_post']);
  });

  it('is not pushed once retracted before its push went', async () => {
    const { user, browser } = await subscribed('Dee_Retracted');
    pushService.answerNext(browser.id, { status: 503, retryAfterSeconds: 1 });
    const mention = mentionEvent(actor, user);
    await harness.deliver(mention);
    await expect.poll(() => pushService.attempts(browser.id), { timeout: 2_000 }).toBe(1);
    await harness.deliver(
      createEvent(
        commentMentionDeleted,
        { ...mention.data, deletedAt: new Date().toISOString() },
        { producer: 'comments', correlationId: 'test' },
      ),
    );
    await harness.deliver(tagEvent(actor, user, 'recipe'));
    await pushService.waitFor(browser.id, 1, 4_000);
    // Its retry came due before the tag was sent, in order: the sender dropped it then.
    await expect
      .poll(async () => (await harness.pool.query('SELECT count(*)::int AS n FROM push_deliveries')).rows[0].n, {
        timeout: 3_000,
      })
      .toBe(0);
    expect(pushService.received(browser.id).map((push) => payloadOf(push).notification.type)).toEqual(['tag_recipe']);
  });

  it('costs two statements on the push outbox: its claim and its settlement, and no claim after it', async () => {
    const { user, browser, subscriptionId } = await subscribed('Jo_Counted');
    const pushes = 6;
    const statements: string[] = [];
    const { pool } = harness;
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof query>) => {
      if (typeof args[0] === 'string' && args[0].includes('push_deliveries')) statements.push(args[0]);
      return query(...args);
    }) as typeof pool.query;
    const started = Date.now();
    try {
      for (let sent = 1; sent <= pushes; sent += 1) {
        await harness.deliver(tagEvent(actor, user, 'post'));
        await pushService.waitFor(browser.id, sent, 2_000);
        // Settled: the subscription is free again.
        await expect
          .poll(
            async () => (await query('SELECT busy_until FROM push_subscriptions WHERE id = $1', [subscriptionId])).rows,
          )
          .toEqual([{ busy_until: null }]);
      }
    } finally {
      pool.query = query as typeof pool.query;
    }
    // The sender also claims once a second when nothing wakes it.
    const polls = Math.ceil((Date.now() - started) / 1_000) + 1;
    expect(statements.length).toBeGreaterThanOrEqual(2 * pushes);
    expect(statements.length).toBeLessThanOrEqual(2 * pushes + polls);
  });
});

describe('the push service’s answers', () => {
  it('410 removes the subscription at once', async () => {
    const { user, browser } = await subscribed('Eve_Gone');
    pushService.answerNext(browser.id, { status: 410 });
    await harness.deliver(mentionEvent(actor, user));
    await expect.poll(() => subscriptionsOf(user), { timeout: 2_000 }).toEqual([]);
    expect(pushService.attempts(browser.id)).toBe(1);
  });

  it('503 twice, then success: delivered once, after growing delays', async () => {
    const { user, browser } = await subscribed('Fay_Retried');
    pushService.answerNext(browser.id, { status: 503 }, { status: 503 });
    await harness.deliver(mentionEvent(actor, user));
    const pushes = await pushService.waitFor(browser.id, 1, 5_000);
    expect(pushes).toHaveLength(1);
    expect(pushService.attempts(browser.id)).toBe(3);
    expect(await subscriptionsOf(user)).toHaveLength(1);
    // A later notification comes once too: nothing of the first was left to send again.
    await harness.deliver(tagEvent(actor, user, 'post'));
    expect((await pushService.waitFor(browser.id, 2, 2_000)).map((push) => payloadOf(push).notification.type)).toEqual([
      'mention_recipe_comment',
      'tag_post',
    ]);
  });

  it('429 waits for its Retry-After', async () => {
    const { user, browser } = await subscribed('Gus_Limited');
    pushService.answerNext(browser.id, { status: 429, retryAfterSeconds: 2 });
    const stored = Date.now();
    await harness.deliver(mentionEvent(actor, user));
    const [push] = await pushService.waitFor(browser.id, 1, 5_000);
    expect(push!.receivedAt - stored).toBeGreaterThanOrEqual(2_000);
  });

  it('a hanging endpoint delays no other', async () => {
    const slow = await subscribed('Hal_Hangs');
    const quick = await subscribed('Ivy_Quick');
    pushService.answerAlways(slow.browser.id, 'hang');
    await harness.deliver(mentionEvent(actor, slow.user));
    await expect.poll(() => pushService.attempts(slow.browser.id), { timeout: 2_000 }).toBe(1);
    const stored = Date.now();
    await harness.deliver(mentionEvent(actor, quick.user));
    const [push] = await pushService.waitFor(quick.browser.id, 1, 1_000);
    expect(push!.receivedAt - stored).toBeLessThan(1_000);
    pushService.answerAlways(slow.browser.id, undefined);
  });
});

describe('the metrics', () => {
  it('count what the sender did, by reason', async () => {
    let text = '';
    const value = (sample: string) =>
      Number(new RegExp(`^${sample.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    // The pushes the local push service took above: Bob's, Cy's, Dee's, Fay's two, Gus's and Ivy's (the
    // last one counted once its answer reached the sender); Hal's too, if its hang timed out and was retried.
    await expect
      .poll(async () => {
        text = await harness.app.metricsRegistry.metrics();
        return value('recipes_push_sent_total');
      })
      .toBeGreaterThanOrEqual(7);
    // Dee's 503, Fay's two 503s, Gus's 429.
    expect(value('recipes_push_retried_total')).toBeGreaterThanOrEqual(4);
    expect(value('recipes_push_failed_total{reason="gone"}')).toBe(1);
    expect(value('recipes_push_subscriptions_removed_total{reason="gone"}')).toBe(1);
    expect(value('recipes_push_pending')).toBeGreaterThanOrEqual(0);
  });
});
