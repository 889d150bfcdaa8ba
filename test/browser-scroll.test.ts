import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, unlimited } from './faults/support.js';
import { expectChromium, hasChromium, launchBrowser, servePage } from './support/browser.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * An inbox in a real browser (docs/api.md §9, §10.1): headless Chromium, on a page of another origin, keeps
 * the notification stream open (new ones go on top) and scrolls the list down by following each answer's
 * `Link: rel="next"`, which it can read across origins (CORS exposes it), while mentions keep arriving.
 * Every notification shows exactly once: the stream brings each new one, the walk by cursor each older one,
 * and neither shows one the other did.
 */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>inbox</title></head>
<body><script>
  const params = new URLSearchParams(location.search);
  const gateway = params.get('gateway');
  const token = params.get('token');
  window.shown = [];
  window.ready = false;
  window.next = gateway + '/api/notifications?limit=3';
  const source = new EventSource(params.get('stream'));
  source.addEventListener('notification', (event) => window.shown.push({ id: JSON.parse(event.data).id, from: 'stream' }));
  source.addEventListener('unread_count', () => (window.ready = true));
  // One page further down: the URL the last answer's Link header named next (root-relative, so resolved
  // against the gateway), until there is none.
  window.scrollDown = async () => {
    const response = await fetch(window.next, { headers: { authorization: 'Bearer ' + token } });
    const body = await response.json();
    for (const notification of body.data) window.shown.push({ id: notification.id, from: 'scroll' });
    const next = /<([^>]+)>;\\s*rel="next"/.exec(response.headers.get('link') || '');
    window.next = next ? new URL(next[1], gateway).href : null;
    return window.next !== null;
  };
</script></body></html>`;

let site: Awaited<ReturnType<typeof servePage>> | undefined;
let system: TestSystem;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
let context: BrowserContext;

beforeAll(async () => {
  // Without the browser nothing is set up, and the test fails (it does not skip): see its first line.
  if (!hasChromium()) return;
  site = await servePage(PAGE);
  system = await startTestSystem({
    name: 'recipes_browser_scroll',
    portOffset: 7790,
    env: { ...unlimited, CORS_ORIGINS: site.origin },
  });
  browser = await launchBrowser();
  context = browser.context;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await system?.stop();
}, 60_000);

describe('an inbox in a browser', () => {
  it('scrolls the list by its Link headers while the stream adds notifications, and shows every notification once', async () => {
    expectChromium();
    const api = apiOf(system);
    const gateway = system.urlOf('gateway');
    const ada = await api.register('scroll_ada');
    const bob = await api.register('scroll_bob');
    const recipeId = await api.recipe(ada);
    let mentions = 0;
    const mention = async () => {
      const response = await api.mention(ada, recipeId, bob, ++mentions);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    };
    const unreadReaches = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while ((await api.unreadCount(bob)) !== count) {
        if (Date.now() > deadline) throw new Error(`bob's unread count did not reach ${count} within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    for (let i = 0; i < 10; i++) await mention();
    await unreadReaches(10);

    const ticket = await api.call('POST', '/notifications/stream-tickets', undefined, bob.token);
    expect(ticket.status).toBe(201);
    const stream = `${gateway}/api/notifications/stream?ticket=${encodeURIComponent(ticket.body.ticket)}`;
    const page = await context.newPage();
    const query = new URLSearchParams({ gateway, token: bob.token, stream });
    await page.goto(`${site!.origin}/?${query}`);
    await page.waitForFunction('window.ready === true', undefined, { timeout: 10_000, polling: 50 });

    // The first page, as the inbox opens; then a page further down at a time, while two more mentions
    // arrive, until the list has no next page. (A mention stored while the first page is read would be on
    // it and on the stream both: a client that opens the stream before reading the first page goes by id.)
    const scrollDown = () => page.evaluate(() => (window as any).scrollDown() as Promise<boolean>);
    let more = await scrollDown();
    let pages = 1;
    for (; more; pages++) [more] = await Promise.all([scrollDown(), mention().then(mention)]);
    await unreadReaches(mentions);
    // Every new one reaches the page through the stream.
    const arrived = mentions - 10;
    await page.waitForFunction(
      `window.shown.filter((item) => item.from === 'stream').length >= ${arrived}`,
      undefined,
      { timeout: 10_000, polling: 50 },
    );

    const shown = (await page.evaluate(() => (window as any).shown)) as Array<{
      id: string;
      from: 'stream' | 'scroll';
    }>;
    const all = (await api.call('GET', '/notifications?limit=100', undefined, bob.token)).body.data.map(
      (n: { id: string }) => n.id,
    ) as string[];
    expect(all).toHaveLength(mentions);
    const ids = shown.map((item) => item.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(new Set(ids)).toEqual(new Set(all));
    // The walk showed the ten that were there when it began, newest first; the stream the rest.
    expect(shown.filter((item) => item.from === 'scroll').map((item) => item.id)).toEqual(all.slice(-10));
    expect(shown.filter((item) => item.from === 'stream')).toHaveLength(arrived);
    expect(pages).toBe(4);
  });
});
