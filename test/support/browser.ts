import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium, which `npm test`'s setup installs where it is missing. */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const hasChromium = () => existsSync(CHROMIUM);

/** Fails the test (never skips it) where the browser is missing. */
export function expectChromium(): void {
  expect(
    hasChromium(),
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y --no-install-recommends chromium, as npm test's setup does)`,
  ).toBe(true);
}

/** Serves `html` at `/` of an origin of its own (another port than the gateway's, so calls are cross-origin). */
export async function servePage(html: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://page').pathname !== '/') return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** Headless Chromium with a profile of its own (its cache included), removed on close. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'recipes-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
