import { createLogger } from '@recipes/logging';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/index.js';

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
