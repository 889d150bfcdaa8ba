import { createLogger } from '@recipes/logging';
import { describe, expect, it } from 'vitest';
import { createApp, NOT_TAKEN_HEADER, stopTaking } from '../src/index.js';

describe('graceful close', () => {
  it('lets an in-flight request finish, refuses new ones, then runs close hooks', async () => {
    const app = await createApp({ title: 'shutdown', logger: createLogger({ service: 'test', level: 'silent' }) });
    const events: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    app.get('/api/slow', async () => {
      events.push('request started');
      await released;
      events.push('request finished');
      return { ok: true };
    });
    app.addHook('onClose', async () => {
      events.push('resources closed');
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });

    const inFlight = fetch(`${address}/api/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(fetch(`${address}/api/slow`)).rejects.toThrow();
    release();

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    await closing;
    expect(events).toEqual(['request started', 'request finished', 'resources closed']);
  });
});

describe('an instance that stops taking requests', () => {
  it('answers each new one 503 marked not taken, without running it, while the one it took finishes', async () => {
    const app = await createApp({ title: 'stopping', logger: createLogger({ service: 'test', level: 'silent' }) });
    const started: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let tookOne!: () => void;
    const took = new Promise<void>((resolve) => (tookOne = resolve));
    app.post('/api/things', async (request) => {
      started.push(String(request.headers['x-name']));
      tookOne();
      if (request.headers['x-name'] === 'taken') await released;
      return { ok: true };
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const taken = fetch(`${address}/api/things`, { method: 'POST', headers: { 'x-name': 'taken' } });
      await took;
      stopTaking(app);
      const refused = await fetch(`${address}/api/things`, { method: 'POST', headers: { 'x-name': 'late' } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get(NOT_TAKEN_HEADER)).toBe('stopping');
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('connection')).toBe('close');
      expect(await refused.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      release();
      expect((await taken).status).toBe(200);
      expect(started).toEqual(['taken']);
    } finally {
      release();
      await app.close();
    }
  });

  it('answers a readiness probe 503 not taken, so a balancer stops sending it traffic', async () => {
    const app = await createApp({ title: 'stopping', logger: createLogger({ service: 'test', level: 'silent' }) });
    try {
      expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      stopTaking(app);
      const probe = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(probe.statusCode).toBe(503);
      expect(probe.headers[NOT_TAKEN_HEADER]).toBe('stopping');
      expect(probe.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(probe.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await app.close();
    }
  });
});
