import { createApp, type App } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { Registry } from '@recipes/metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoopDelay, LoopGuard, sampledLoopDelay } from '../src/admission/loop-guard.js';

const logger = createLogger({ service: 'test', level: 'silent' });

/** Keeps the event loop busy for `ms`, as a gateway taking in more than it can would. */
function block(ms: number): void {
  for (const until = performance.now() + ms; performance.now() < until;);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sampledLoopDelay', () => {
  it('says how far behind a loop kept busy ran, not one that paused once, and that it caught up', async () => {
    const loop = sampledLoopDelay(50);
    try {
      await pause(120);
      expect(loop.delayMs).toBeLessThan(40);
      // One pause: the next look finds the loop on time again.
      block(200);
      await pause(10);
      expect(loop.delayMs).toBeLessThan(40);
      await pause(60);
      // Behind at two looks in a row.
      block(200);
      await pause(1);
      block(200);
      await pause(10);
      expect(loop.delayMs).toBeGreaterThanOrEqual(100);
      await pause(120);
      expect(loop.delayMs).toBeLessThan(40);
    } finally {
      loop.close();
    }
  });
});

describe('LoopGuard in front of an app', () => {
  let app: App | undefined;
  afterEach(async () => app?.close());

  /** An app behind a guard whose loop delay the test sets. */
  async function guarded() {
    const loop = { delayMs: 0, close: () => undefined } satisfies LoopDelay;
    const registry = new Registry();
    const guard = new LoopGuard(50, registry, { 'x-frame-options': 'SAMEORIGIN' }, loop);
    app = await createApp({ title: 'guarded', logger, answerEarly: guard.answerEarly });
    let routed = 0;
    app.addHook('onRequest', (_request, _reply, done) => {
      routed += 1;
      done();
    });
    app.get('/api/recipes/:id', async () => ({ ok: true }));
    app.get('/api/notifications/stream', async () => ({ stream: true }));
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    return { loop, registry, base, routed: () => routed };
  }

  it('answers API requests 503 before routing them while the loop is behind, never a stream, health or docs', async () => {
    const { loop, registry, base, routed } = await guarded();
    expect((await fetch(`${base}/api/recipes/1`)).status).toBe(200);
    expect(routed()).toBe(1);

    loop.delayMs = 80;
    const shed = await fetch(`${base}/api/recipes/1?x=1`, { method: 'GET', headers: { 'x-request-id': 'shed-1' } });
    expect(shed.status).toBe(503);
    expect(shed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(shed.headers.get('x-request-id')).toBe('shed-1');
    expect(shed.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(await shed.json()).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      instance: '/api/recipes/1',
      requestId: 'shed-1',
    });
    // A POST's body is left unread, and its connection still serves the next request.
    const post = await fetch(`${base}/api/recipes/1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 'x'.repeat(10_000) }),
    });
    expect(post.status).toBe(503);
    expect(routed()).toBe(1);
    for (const path of ['/health/live', '/api/notifications/stream', '/openapi.json'])
      expect((await fetch(`${base}${path}`)).status, path).toBe(200);
    expect(await registry.getSingleMetricAsString('recipes_gateway_shed_total')).toMatch(
      /recipes_gateway_shed_total 2$/m,
    );

    loop.delayMs = 10;
    expect((await fetch(`${base}/api/recipes/1`)).status).toBe(200);
  });
});
