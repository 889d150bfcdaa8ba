import { randomUUID } from 'node:crypto';
import { DomainError } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  connectSharedStore,
  createApp,
  forgetLimitCounts,
  isDependencyUnavailable,
  limitCountKey,
  rateLimits,
  type SharedStore,
} from '../src/index.js';

/**
 * A deleted user's counts leave the shared store (docs/api.md §11.2): on the real Redis (REDIS_URL, else the
 * machine's), a limit counted per caller is found where `limitCountKey` says, and `forgetLimitCounts` deletes it and
 * nobody else's, however often it is called.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-forget-counts-${randomUUID()}:`;
const silent = createLogger({ service: 'test', level: 'silent' });

let app: App;
let shared: SharedStore;
let redis: Redis;
beforeAll(async () => {
  shared = await connectSharedStore({ url: REDIS_URL, prefix, logger: silent });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  app = await createApp({ title: 'forget', logger: silent });
  const limitOf = await rateLimits(app, shared);
  const perCaller = limitOf({
    name: 'comments',
    max: 10,
    windowMs: 60_000,
    keyGenerator: (request) => String(request.headers['x-caller']),
  });
  app.get('/spend', { onRequest: perCaller }, async () => ({ ok: true }));
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await shared?.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
});

const spend = (caller: string) => app.inject({ method: 'GET', url: '/spend', headers: { 'x-caller': caller } });

describe('forgetLimitCounts', () => {
  it('finds a caller’s count where the limit keeps it, and deletes it and no other, again and again', async () => {
    const [leaver, stays] = [randomUUID(), randomUUID()];
    for (const caller of [leaver, leaver, stays]) expect((await spend(caller)).statusCode).toBe(200);
    expect(await redis.get(limitCountKey(shared, 'comments', leaver))).toBe('2');
    expect(await redis.get(limitCountKey(shared, 'comments', stays))).toBe('1');

    await forgetLimitCounts(shared, ['comments', 'exports'], leaver);
    await forgetLimitCounts(shared, ['comments', 'exports'], leaver);
    expect((await redis.keys(`${prefix}*`)).filter((key) => key.includes(leaver))).toEqual([]);
    expect(await redis.get(limitCountKey(shared, 'comments', stays))).toBe('1');
    // Counted afresh from nothing.
    expect((await spend(leaver)).headers.ratelimit).toContain('"comments";r=9');
  });

  it('fails as unavailable while the store is away, so that an erasure waits for it', async () => {
    const away = await connectSharedStore({ url: 'redis://127.0.0.1:1', prefix, logger: silent });
    try {
      const failure = await forgetLimitCounts(away, ['comments'], randomUUID()).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DomainError);
      expect(isDependencyUnavailable(failure)).toBe(true);
    } finally {
      away.redis.disconnect();
    }
  });
});
