import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, unlimited } from './faults/support.js';
import { expectChromium, hasChromium, launchBrowser, servePage } from './support/browser.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * The notification stream (docs/api.md §9, issue 17 point 6) in a real browser: headless Chromium opens
 * an `EventSource` with a ticket on a page of another origin, receives a mention, has its connection ended
 * by the server (the notifications service shuts down and comes back), and by the browser's own
 * reconnect, which sends `Last-Event-ID` with the same (used) ticket, receives what was created while it
 * was away, once each, then the live ones.
 */
const STREAM_PATH = '/api/notifications/stream';

/**
 * The page: it opens one `EventSource` on the URL in its query (`?stream=`) and records every event, its
 * opens and its errors. It never reconnects by itself: every reconnect is the browser's.
 */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>notification stream</title></head>
<body><script>
  window.received = [];
  window.opens = [];
  window.errors = [];
  const source = new EventSource(new URLSearchParams(location.search).get('stream'));
  const record = (event) => window.received.push({ type: event.type, lastEventId: event.lastEventId, data: event.data, at: Date.now() });
  for (const type of ['notification', 'unread_count', 'reset', 'replaced', 'retracted']) source.addEventListener(type, record);
  source.onmessage = record;
  source.onopen = () => window.opens.push({ at: Date.now() });
  // readyState 0 (CONNECTING): the browser will reconnect; 2 (CLOSED): it gave up.
  source.onerror = () => window.errors.push({ at: Date.now(), readyState: source.readyState });
</script></body></html>`;

interface Received {
  type: string;
  lastEventId: string;
  data: string;
  at: number;
}

interface StreamRequest {
  at: number;
  lastEventId: string | undefined;
  /** Why it never reached the server, if it did not. */
  failure: string | undefined;
}

let site: Awaited<ReturnType<typeof servePage>> | undefined;
let pageOrigin: string;
let system: TestSystem;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
let context: BrowserContext;

beforeAll(async () => {
  // Without the browser nothing is set up, and the test fails (it does not skip): see its first line.
  if (!hasChromium()) return;
  site = await servePage(PAGE);
  pageOrigin = site.origin;
  // The page is of another origin than the gateway (another port): the gateway must allow it.
  system = await startTestSystem({
    name: 'recipes_browser',
    portOffset: 4700,
    // Chromium starts beside the system on two cores: the gateway's 50 ms loop guard once shed the first
    // registration (503). What is tested here is the stream, not the guard (test/overload.test.ts).
    env: { ...unlimited, CORS_ORIGINS: pageOrigin, ADMISSION_LOOP_DELAY_MS: '500' },
  });
  browser = await launchBrowser();
  context = browser.context;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await system?.stop();
}, 60_000);

describe('the notification stream in a browser', () => {
  it('receives a mention, and after the server ends the stream, resumes by its own reconnect with what it missed, once each', async () => {
    expectChromium();
    const api = apiOf(system);
    const gateway = system.urlOf('gateway');
    const ada = await api.register('browser_ada');
    const bob = await api.register('browser_bob');
    const recipeId = await api.recipe(ada);
    /** Ada mentions bob; the notification's id is what the stream and the list must show. */
    const mention = async (n: number) => {
      const response = await api.mention(ada, recipeId, bob, n);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    };
    /** Until bob has `count` unread notifications, as the API tells (not the browser). */
    const unreadReaches = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while ((await api.unreadCount(bob)) !== count) {
        if (Date.now() > deadline) throw new Error(`bob's unread count did not reach ${count} within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    const ticket = await api.call('POST', '/notifications/stream-tickets', undefined, bob.token);
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(201);
    const streamUrl = `${gateway}${STREAM_PATH}?ticket=${encodeURIComponent(ticket.body.ticket)}`;

    const page = await context.newPage();
    // What the browser itself sends on the stream and what it gets back: the page cannot see its headers.
    const isStream = (url: string) => url.startsWith(`${gateway}${STREAM_PATH}`);
    const requests: StreamRequest[] = [];
    const responses: Array<{ status: number; allowOrigin: string | undefined }> = [];
    page.on('request', async (request) => {
      if (!isStream(request.url())) return;
      const entry: StreamRequest = { at: Date.now(), lastEventId: undefined, failure: undefined };
      requests.push(entry);
      // As sent on the wire (known once it has gone out): the browser adds Last-Event-ID itself.
      entry.lastEventId = (await request.allHeaders())['last-event-id'];
    });
    page.on('requestfailed', (request) => {
      if (isStream(request.url())) requests.at(-1)!.failure = request.failure()?.errorText;
    });
    page.on('response', (response) => {
      if (isStream(response.url()))
        responses.push({ status: response.status(), allowOrigin: response.headers()['access-control-allow-origin'] });
    });
    await page.goto(`${pageOrigin}/?stream=${encodeURIComponent(streamUrl)}`);

    const notifications = (): Promise<Received[]> =>
      page.evaluate(() => (window as any).received.filter((event: Received) => event.type === 'notification'));
    /** Until `predicate` holds in the page; if it never does, the error tells what the stream saw and did. */
    const waitFor = async (predicate: string, timeout: number) => {
      try {
        await page.waitForFunction(predicate, undefined, { timeout, polling: 50 });
      } catch (error) {
        const seen = await page.evaluate(() => ({
          received: (window as any).received,
          opens: (window as any).opens,
          errors: (window as any).errors,
        }));
        throw new Error(
          `${predicate} did not hold within ${timeout} ms: ${JSON.stringify({ requests, responses, ...seen })}`,
          { cause: error },
        );
      }
    };
    const unreadIs = (count: number) =>
      `window.received.some((e) => e.type === 'unread_count' && JSON.parse(e.data).count === ${count})`;

    // Open, cross-origin, with the gateway's CORS headers on the stream.
    await waitFor(`window.opens.length === 1 && ${unreadIs(0)}`, 10_000);
    expect(responses).toEqual([{ status: 200, allowOrigin: pageOrigin }]);

    // 1. A mention made through the API arrives live.
    await mention(1);
    await waitFor(`window.received.some((e) => e.type === 'notification') && ${unreadIs(1)}`, 5_000);
    const live = await notifications();
    expect(live).toHaveLength(1);
    const firstId = live[0]!.lastEventId;
    expect(JSON.parse(live[0]!.data)).toMatchObject({
      id: firstId,
      type: 'mention_recipe_comment',
      contentId: recipeId,
      isRead: false,
    });

    // 2. The server ends the stream: the notifications service shuts down (its streams end cleanly at
    //    once) and, while it is away, three more mentions are made; then it starts again, and a fourth
    //    is made once it has stored those three.
    //    There is one instance: a reconnect while it is away either reaches it still draining (over a
    //    connection the gateway keeps to it) and is cut again, or gets 503 from the gateway, after which
    //    an EventSource gives up for good (HTML Living Standard: a non-200 answer fails the connection).
    //    So while it is away the browser is offline: its attempts fail as network errors, after which it
    //    keeps trying every `retry` ms by itself, as against a network that comes back.
    const service = system.process('notifications', 0)!;
    const cutAt = Date.now();
    const exited = service.kill('SIGTERM');
    await waitFor('window.errors.length === 1', 2_000);
    await context.setOffline(true);
    const [cut] = await page.evaluate(() => (window as any).errors as Array<{ at: number; readyState: number }>);
    // The stream ended as the service began to shut down (not once it had drained), and the browser is
    // reconnecting (readyState CONNECTING), not given up.
    expect(cut!.at - cutAt).toBeLessThan(1_000);
    expect(cut!.readyState).toBe(0);
    await exited;
    const exitedAt = Date.now();
    for (let n = 2; n <= 4; n += 1) await mention(n);
    const mentionedAt = Date.now();
    await service.start();
    const restartedAt = Date.now();
    await unreadReaches(4);
    await mention(5);
    await unreadReaches(5);
    const storedAt = Date.now();
    await context.setOffline(false);

    // 3. The browser's own reconnect: the same EventSource and URL (a used ticket), with Last-Event-ID.
    await waitFor(`window.opens.length === 2 && ${unreadIs(5)}`, 15_000);
    const [first, ...attempts] = requests;
    const resumed = attempts.at(-1)!;
    expect(first).toMatchObject({ lastEventId: undefined, failure: undefined });
    // Each attempt while offline failed before it left the browser; the last went out and was answered.
    expect(attempts.slice(0, -1).map((attempt) => attempt.failure)).toEqual(
      attempts.slice(0, -1).map(() => 'net::ERR_INTERNET_DISCONNECTED'),
    );
    expect(resumed).toMatchObject({ lastEventId: firstId, failure: undefined });
    expect(resumed.at).toBeGreaterThanOrEqual(storedAt);
    expect(responses).toEqual([
      { status: 200, allowOrigin: pageOrigin },
      { status: 200, allowOrigin: pageOrigin },
    ]);
    // Not before the server's `retry: 3000` (a little leeway: the end is seen in the page, the request here).
    const firstAttemptAfter = attempts[0]!.at - cut!.at;
    expect(firstAttemptAfter).toBeGreaterThanOrEqual(2_900);
    // Never given up: every error left it reconnecting.
    const errors = await page.evaluate(() => (window as any).errors as Array<{ readyState: number }>);
    expect(errors.map((error) => error.readyState)).toEqual(requests.slice(1).map(() => 0));
    const reopenedAt = (await page.evaluate(() => (window as any).opens as Array<{ at: number }>))[1]!.at;
    console.info(
      `browser-stream timings (ms after SIGTERM): stream ended ${cut!.at - cutAt}, process exited ${exitedAt - cutAt}, ` +
        `3 mentions made by ${mentionedAt - cutAt}, started again ${restartedAt - cutAt}, all 4 stored ` +
        `${storedAt - cutAt}; browser attempts ${attempts.map((attempt) => attempt.at - cutAt).join(', ')} ` +
        `(first ${firstAttemptAfter} after the end), open again ${reopenedAt - cutAt}`,
    );

    // 4. And live again after the resume.
    await mention(6);
    await waitFor(unreadIs(6), 5_000);

    const listed = await api.call('GET', '/notifications?limit=100', undefined, bob.token);
    expect(listed.status).toBe(200);
    const expected = (listed.body.data as Array<{ id: string }>).map((notification) => notification.id).reverse();
    expect(expected).toHaveLength(6);
    const received = await notifications();
    const ids = received.map((event) => event.lastEventId);
    // Each event's id is its notification's; each notification came exactly once, and every one listed came.
    expect(received.map((event) => JSON.parse(event.data).id)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expected].sort());
    // In the list's order (oldest first), but for one thing: the three mentions made while the service
    // was away were consumed together as it came back, and the stream sends them in the order they were
    // stored (their sequence: commit order), which need not be the order of the mentions, that the list
    // follows (created_at). Until the two agree, only the set of those three is compared.
    expect(ids[0]).toBe(expected[0]);
    expect(new Set(ids.slice(1, 4))).toEqual(new Set(expected.slice(1, 4)));
    expect(ids.slice(4)).toEqual(expected.slice(4));
    // The four made while the browser was away came with its reconnect, before the live one.
    expect(received.slice(1, 5).every((event) => event.at >= reopenedAt)).toBe(true);
    // Nothing else was sent on the stream, and nothing more was asked for.
    expect(
      await page.evaluate(() =>
        (window as any).received.filter((e: Received) => !['notification', 'unread_count'].includes(e.type)),
      ),
    ).toEqual([]);
    expect(requests).toHaveLength(attempts.length + 1);
    await page.close();
  }, 60_000);
});
