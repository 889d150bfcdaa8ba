import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyPurger, purgeExpiredKeys } from '../src/index.js';
import { thingsService, type ThingsService } from './support.js';

let service: ThingsService;
beforeAll(async () => {
  service = await thingsService();
});
afterAll(() => service?.close());

type Caller = ReturnType<ThingsService['caller']>;

const send = (caller: Caller, key: string, body: object) =>
  service.app.inject({
    method: 'POST',
    url: '/api/things',
    headers: { authorization: caller.authorization, 'idempotency-key': key },
    payload: body,
  });

/** Moves a kept key back in time, as if its request had come `hours` ago. */
async function age(callerId: string, key: string, hours: number): Promise<void> {
  await service.pool.query(
    `UPDATE idempotency_keys SET created_at = now() - $3::float8 * interval '1 hour' WHERE caller_id = $1 AND key = $2`,
    [callerId, key, hours],
  );
}

describe('a key older than 24 hours', () => {
  it('is as good as gone: the same request runs again, and another body is no longer refused', async () => {
    const [caller, thing] = [service.caller(), `thing_${randomUUID()}`];
    const first = await send(caller, 'old-key', { name: thing });
    expect(first.statusCode).toBe(201);

    await age(caller.id, 'old-key', 23.9);
    expect((await send(caller, 'old-key', { name: thing })).headers['idempotent-replayed']).toBe('true');

    await age(caller.id, 'old-key', 24.1);
    const again = await send(caller, 'old-key', { name: thing });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body).not.toBe(first.body);
    expect(await service.things(thing)).toBe(2);

    // The row was replaced by the new request's: it is what a retry now gets.
    expect((await send(caller, 'old-key', { name: thing })).body).toBe(again.body);
    await age(caller.id, 'old-key', 25);
    expect((await send(caller, 'old-key', { name: `${thing}_other` })).statusCode).toBe(201);
  });

  it('is purged, and younger ones stay', async () => {
    const caller = service.caller();
    for (const key of ['fresh', 'stale', 'ancient'])
      expect((await send(caller, key, { name: `thing_${randomUUID()}` })).statusCode).toBe(201);
    await age(caller.id, 'fresh', 23);
    await age(caller.id, 'stale', 24.5);
    await age(caller.id, 'ancient', 24 * 30);
    expect(await purgeExpiredKeys(service.pool)).toBeGreaterThanOrEqual(2);
    expect(await service.keptKeys(caller.id)).toEqual(['fresh']);
  });
});

describe('KeyPurger', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('purges as it starts, then on every tick, and not after it stops', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const caller = service.caller();
    const expired = async (key: string) => {
      expect((await send(caller, key, { name: `thing_${randomUUID()}` })).statusCode).toBe(201);
      await age(caller.id, key, 25);
    };
    const warnings: unknown[] = [];
    const purger = new KeyPurger({
      pool: service.pool,
      logger: { warn: (object) => warnings.push(object) },
      everyMs: 60_000,
    });

    await expired('before-start');
    purger.start();
    await expect.poll(() => service.keptKeys(caller.id)).toEqual([]);

    await expired('before-tick');
    vi.advanceTimersByTime(60_000);
    await expect.poll(() => service.keptKeys(caller.id)).toEqual([]);

    await purger.stop();
    expect(vi.getTimerCount()).toBe(0);
    await expired('after-stop');
    vi.advanceTimersByTime(10 * 60_000);
    // A purge a tick had started would be awaited here.
    await purger.stop();
    expect(await service.keptKeys(caller.id)).toEqual(['after-stop']);
    expect(warnings).toEqual([]);
  });

  it('logs a purge that fails, and goes on', async () => {
    const gone = await thingsService();
    await gone.close();
    const warnings: unknown[] = [];
    const purger = new KeyPurger({ pool: gone.pool, logger: { warn: (object) => warnings.push(object) } });
    purger.start();
    await purger.stop();
    expect(warnings).toHaveLength(1);
  });
});
