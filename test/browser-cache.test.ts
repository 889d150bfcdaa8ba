import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, unlimited } from './faults/support.js';
import { expectChromium, hasChromium, launchBrowser, servePage } from './support/browser.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * A browser's own HTTP cache between two users (docs/api.md §1): in one browser, Ada reads her
 * notifications, signs out, and Bob signs in. The page fetches the same URLs with Bob's token; the browser
 * revalidates what it kept of Ada's, unless the answer said it varies with the token. Whatever it does,
 * Bob must see his own notifications, never Ada's.
 */
/** The page: `window.read(url, token)` fetches as an app would, with the browser's default cache mode. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>cache</title></head>
<body><script>
  window.read = async (url, token) => {
    const response = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
    return { status: response.status, etag: response.headers.get('etag'), body: await response.json() };
  };
</script></body></html>`;

let site: Awaited<ReturnType<typeof servePage>> | undefined;
let system: TestSystem;
let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;

beforeAll(async () => {
  if (!hasChromium()) return;
  site = await servePage(PAGE);
  system = await startTestSystem({
    name: 'recipes_browser_cache',
    portOffset: 4900,
    env: { ...unlimited, CORS_ORIGINS: site.origin },
  });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await system?.stop();
}, 60_000);

describe('a browser’s cache shared by two users', () => {
  it('never shows one user’s notifications or count to the next, and the page can read each answer’s ETag', async () => {
    expectChromium();
    const api = apiOf(system);
    const gateway = system.urlOf('gateway');
    const [ada, bob, cy] = [
      await api.register('cache_ada'),
      await api.register('cache_bob'),
      await api.register('cache_cy'),
    ];
    const recipeId = await api.recipe(cy);
    // One mention each: the two lists have the same shape and version, with different contents.
    for (const mentioned of [ada, bob]) expect((await api.mention(cy, recipeId, mentioned)).status).toBe(201);
    const deadline = Date.now() + 10_000;
    while ((await api.unreadCount(ada)) !== 1 || (await api.unreadCount(bob)) !== 1) {
      if (Date.now() > deadline) throw new Error('the mentions did not become notifications within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const own = async (account: typeof ada) => (await api.call('GET', '/notifications', undefined, account.token)).body;

    const tab = await browser!.context.newPage();
    // What went over the wire, as the browser sent it.
    const sent: Array<{ url: string; ifNoneMatch: string | undefined }> = [];
    tab.on('request', async (request) => {
      if (request.method() === 'GET' && request.url().startsWith(`${gateway}/api/`)) {
        sent.push({ url: request.url(), ifNoneMatch: (await request.allHeaders())['if-none-match'] });
      }
    });
    await tab.goto(site!.origin);
    const read = (path: string, token: string) =>
      tab.evaluate(([url, bearer]) => (window as any).read(url, bearer), [`${gateway}/api${path}`, token] as const);

    for (const path of ['/notifications', '/notifications/unread-count']) {
      const first = await read(path, ada.token);
      expect(first.status).toBe(200);
      expect(first.etag, `${path}: the page reads the ETag`).toMatch(/^"[^"]+"$/);
      // Ada again: the browser revalidates her copy, and keeps it.
      expect(await read(path, ada.token)).toEqual(first);
      // Bob, in the same browser: his own, whatever the cache held.
      const second = await read(path, bob.token);
      expect(second.status).toBe(200);
      expect(second.etag).not.toBe(first.etag);
      if (path === '/notifications') {
        expect(second.body).toEqual(await own(bob));
        expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
      }
    }
    // The browser did revalidate Ada’s copies with her tags: the cache was in play.
    expect(sent.filter((request) => request.ifNoneMatch !== undefined).length).toBeGreaterThan(0);
    expect(sent.length).toBeGreaterThanOrEqual(6);
  });
});
