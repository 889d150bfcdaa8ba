import { randomUUID } from 'node:crypto';
import { problemSchema } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thingsService, type ThingsService } from './support.js';

let service: ThingsService;
beforeAll(async () => {
  service = await thingsService();
});
afterAll(() => service?.close());

type Caller = ReturnType<ThingsService['caller']>;

function send(caller: Caller, body: unknown, { key, url = '/api/things' }: { key?: string; url?: string } = {}) {
  return service.app.inject({
    method: 'POST',
    url,
    headers: {
      authorization: caller.authorization,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const name = () => `thing_${randomUUID()}`;
const key = () => `key-${randomUUID()}`;

describe('a request with an Idempotency-Key', () => {
  it('runs once; a retry gets the first response again, byte for byte, marked as replayed', async () => {
    const [caller, thing, k] = [service.caller(), name(), key()];
    const first = await send(caller, { name: thing, note: 'x' }, { key: k });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const handled = service.handled();
    // The same body with other spacing and key order is the same request.
    const again = await send(caller, `{ "note": "x",\n "name": ${JSON.stringify(thing)} }`, { key: k });
    const same = await send(caller, { name: thing, note: 'x' }, { key: k });
    for (const replay of [same, again]) {
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
      expect(replay.body).toBe(first.body);
      expect(replay.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    }
    expect(service.handled()).toBe(handled);
    expect(await service.things(thing)).toBe(1);
    expect(await service.keptKeys(caller.id)).toEqual([k]);
  });

  it('is scoped to its caller: another caller with the same key makes a request of their own', async () => {
    const [thing, k] = [name(), key()];
    const [ada, bob] = [service.caller(), service.caller()];
    expect((await send(ada, { name: thing }, { key: k })).statusCode).toBe(201);
    const other = await send(bob, { name: thing }, { key: k });
    expect(other.statusCode).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await service.things(thing)).toBe(2);
  });

  it('is 422 IDEMPOTENCY_KEY_REUSED with another body or another path, and does nothing', async () => {
    const [caller, thing, k] = [service.caller(), name(), key()];
    expect((await send(caller, { name: thing }, { key: k })).statusCode).toBe(201);
    const handled = service.handled();
    for (const reused of [
      await send(caller, { name: thing, note: 'changed' }, { key: k }),
      await send(caller, { name: `${thing}_other` }, { key: k }),
      await send(caller, { name: thing }, { key: k, url: '/api/other-things' }),
    ]) {
      expect(reused.statusCode).toBe(422);
      expect(reused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemSchema.parse(reused.json())).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    expect(service.handled()).toBe(handled);
    expect(await service.things(thing)).toBe(1);
    // The first response is still the one kept.
    expect((await send(caller, { name: thing }, { key: k })).headers['idempotent-replayed']).toBe('true');
  });

  it('ignores the query string: the path is what counts', async () => {
    const [caller, thing, k] = [service.caller(), name(), key()];
    const first = await send(caller, { name: thing }, { key: k, url: '/api/things?a=1' });
    const replay = await send(caller, { name: thing }, { key: k, url: '/api/things?b=2' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
  });

  it('is 409 CONFLICT while the first request with the key is still running, then replays it', async () => {
    const [caller, thing, k] = [service.caller(), name(), key()];
    const hold = service.hold(thing);
    const first = send(caller, { name: thing }, { key: k });
    await hold.reached;

    const meanwhile = await send(caller, { name: thing }, { key: k });
    expect(meanwhile.statusCode).toBe(409);
    expect(meanwhile.json()).toMatchObject({ status: 409, code: 'CONFLICT' });
    // Even with another body: whether it is the same request cannot be known before the first ends.
    expect((await send(caller, { name: `${thing}_other` }, { key: k })).statusCode).toBe(409);

    hold.release();
    const firstResponse = await first;
    expect(firstResponse.statusCode).toBe(201);
    const after = await send(caller, { name: thing }, { key: k });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toBe(firstResponse.body);
    expect(await service.things(thing)).toBe(1);
  });

  it('keeps a 4xx the handler threw, and replays that problem exactly', async () => {
    const [caller, thing, k] = [service.caller(), name(), key()];
    service.plan(thing, 'not found');
    const first = await send(caller, { name: thing }, { key: k });
    expect(first.statusCode).toBe(404);
    const replay = await send(caller, { name: thing }, { key: k });
    expect(replay.statusCode).toBe(404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    // The first request's id and all: the very body the first request got.
    expect(replay.body).toBe(first.body);
    expect(await service.things(thing)).toBe(0);
  });

  it.each([
    ['unavailable', 503],
    ['crash', 500],
    ['rate limited', 429],
  ] as const)(
    'keeps neither effect nor response when the handler answers %s (%i) after its effect; a retry runs again',
    async (outcome, status) => {
      const [caller, thing, k] = [service.caller(), name(), key()];
      service.plan(thing, outcome);
      const failed = await send(caller, { name: thing }, { key: k });
      expect(failed.statusCode).toBe(status);
      // The effect's withTransaction joined the key's transaction, and was rolled back with it.
      expect(await service.things(thing)).toBe(0);
      expect(await service.keptKeys(caller.id)).toEqual([]);

      const retry = await send(caller, { name: thing }, { key: k });
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await service.things(thing)).toBe(1);
      expect((await send(caller, { name: thing }, { key: k })).body).toBe(retry.body);
    },
  );

  it('keeps neither when the connection is killed after the effect: 503, and a retry runs again', async () => {
    const [caller, thing, k] = [service.caller(), name(), key()];
    service.plan(thing, 'connection lost');
    const lost = await send(caller, { name: thing }, { key: k });
    expect(lost.statusCode).toBe(503);
    expect(await service.things(thing)).toBe(0);
    expect(await service.keptKeys(caller.id)).toEqual([]);
    expect((await send(caller, { name: thing }, { key: k })).statusCode).toBe(201);
    expect(await service.things(thing)).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['with a tab', 'tab\there'],
    ['with DEL', 'del\x7f'],
    ['not ASCII', 'caf\xe9'],
  ])('is 400 VALIDATION_ERROR for a key %s, naming the header, and does nothing', async (_case, malformed) => {
    const [caller, thing] = [service.caller(), name()];
    const response = await send(caller, { name: thing }, { key: malformed });
    expect(response.statusCode).toBe(400);
    expect(problemSchema.parse(response.json())).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'idempotency-key', message: expect.any(String) }],
    });
    expect(await service.things(thing)).toBe(0);
    expect(await service.keptKeys(caller.id)).toEqual([]);
  });

  it('takes keys of 1 and 255 visible characters', async () => {
    const caller = service.caller();
    for (const edge of ['!', '~'.repeat(255)])
      expect((await send(caller, { name: name() }, { key: edge })).statusCode).toBe(201);
  });
});

describe('a request without the header', () => {
  it('runs every time, keeps nothing and is never marked', async () => {
    const [caller, thing] = [service.caller(), name()];
    const responses = [await send(caller, { name: thing }), await send(caller, { name: thing })];
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201]);
    expect(responses.map((response) => response.headers['idempotent-replayed'])).toEqual([undefined, undefined]);
    expect(await service.things(thing)).toBe(2);
    expect(await service.keptKeys(caller.id)).toEqual([]);
  });
});

describe('the pool', () => {
  it('is never all held by keyed requests waiting for a client for their other queries', async () => {
    // Two clients: unlimited, two requests would each hold one and wait for the other's until the timeout.
    const small = await thingsService({ poolMax: 2 });
    try {
      const caller = small.caller();
      const holds = [0, 1, 2, 3].map(() => name());
      const responses = await Promise.all(
        holds.map((thing) =>
          small.app.inject({
            method: 'POST',
            url: '/api/things',
            headers: { authorization: caller.authorization, 'idempotency-key': key() },
            payload: { name: thing },
          }),
        ),
      );
      expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 201]);
    } finally {
      await small.close();
    }
  });
});

describe('the API document', () => {
  it('describes the optional header, with its rule', async () => {
    const document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: object[] }>>;
    };
    expect(document.paths['/api/things']!.post!.parameters).toContainEqual(
      expect.objectContaining({
        in: 'header',
        name: 'idempotency-key',
        required: false,
        schema: expect.objectContaining({ type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$' }),
        description: expect.stringContaining('Idempotent-Replayed: true'),
      }),
    );
  });
});
