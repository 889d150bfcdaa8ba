import { followNotifications } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, callsNotingErrors, databaseOf, settlesAt, unlimited } from './faults/support.js';
import { startTestSystem, type TestSystem } from './support/system.js';
import type { Account } from './support/world.js';

/**
 * A rolling restart (docs/api.md §1, docs/architecture.md §10): two instances of every service behind
 * the gateway, each instance in turn stopped with SIGTERM and started again, as a rolling deploy does,
 * while clients post mentioned comments (one with an Idempotency-Key, which the gateway may send on to the
 * other instance after a cut connection, one without, which a stopping instance answers "not taken" rather
 * than leave it to a cut: docs/architecture.md §10), read lists and hold notification streams. No client sees an error; every comment posted is
 * notified once; every stream, ended by its instance's stop and opened again with Last-Event-ID as
 * EventSource does, sees every notification of its user once.
 */
const SERVICES = ['users', 'content', 'comments', 'collections', 'notifications'] as const;
const MENTIONED = 4;

let system: TestSystem;
let db: ReturnType<typeof databaseOf>;
let api: ReturnType<typeof apiOf>;
beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_rolling',
    portOffset: 6200,
    replicas: 2,
    readyWithinMs: 90_000,
    // Ten instances, and an eleventh while one starts again, each with its pool and a LISTEN connection, within
    // PostgreSQL's 100 connections (DATABASE_POOL_MAX, docs/configuration.md): at 10 a pool they ran out of them.
    env: { ...unlimited, DATABASE_POOL_MAX: '6' },
  });
  db = databaseOf(system);
  api = apiOf(system);
}, 120_000);
afterAll(async () => {
  await db?.close();
  await system?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What clients saw go wrong: one line each. */
const errors: string[] = [];

/** `account`'s notification stream, reopened whenever it ends; a stream that cannot be opened is an error. */
const follow = (account: Account) =>
  followNotifications(
    `${system.urlOf('gateway')}/api/notifications/stream`,
    { authorization: `Bearer ${account.token}` },
    (why) => errors.push(`stream of ${account.user.username}: ${why}`),
  );

/** Runs `task` one after another until stopped: the requests a client makes in a steady loop. */
function loop(task: (i: number) => Promise<void>) {
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) await task(i);
  })();
  return async () => {
    stopped = true;
    await done;
  };
}

describe('a rolling restart of every service', () => {
  it('gives clients no error, notifies every comment once, and the streams miss nothing', async () => {
    const author = await api.register('rolling_author');
    const mentioned: Account[] = [];
    for (let i = 0; i < MENTIONED; i++) mentioned.push(await api.register(`rolling_${i}`));
    const recipeId = await api.recipe(author);
    const streams = mentioned.map((account) => follow(account));
    await Promise.all(streams.map((stream) => stream.ready));

    const posted = new Map<string, number>();
    const call = callsNotingErrors(errors);
    const writers = [0, 1].map((writer) =>
      loop(async (i) => {
        const who = (2 * i + writer) % MENTIONED;
        const reply = await call(`comment ${writer}.${i}`, () =>
          api.call(
            'POST',
            `/recipes/${recipeId}/comments`,
            { content: `Rolling @${mentioned[who]!.user.username} (${writer}.${i})` },
            author.token,
            writer === 0 ? { 'idempotency-key': `rolling-${writer}-${i}` } : {},
          ),
        );
        if (reply?.status === 201) posted.set(reply.body.comment.id, who);
        await pause(50);
      }),
    );
    const readers = [
      loop(async () => {
        await call('comment list', () => api.call('GET', `/recipes/${recipeId}/comments`));
        await pause(20);
      }),
      loop(async (i) => {
        await call('notification list', () =>
          api.call('GET', '/notifications', undefined, mentioned[i % MENTIONED]!.token),
        );
        await pause(20);
      }),
    ];

    await pause(1_000);
    for (const service of SERVICES) {
      for (const instance of [0, 1]) {
        await system.process(service, instance)!.restart();
        await pause(500);
      }
    }
    await pause(1_000);
    await Promise.all([...writers, ...readers].map((stop) => stop()));

    expect(errors).toEqual([]);
    expect(posted.size).toBeGreaterThan(50);
    // Every comment posted, notified once: one notification each, and nothing else.
    await settlesAt(() => db.count('SELECT count(*)::int AS count FROM notifications.notifications'), posted.size, {
      timeoutMs: 30_000,
    });
    const { rows } = await db.query<{ comment_id: string; recipient_id: string; id: string; n: number }>(
      'SELECT comment_id, recipient_id, min(id::text) AS id, count(*)::int AS n FROM notifications.notifications GROUP BY comment_id, recipient_id',
    );
    expect(rows.filter((row) => row.n !== 1)).toEqual([]);
    expect(new Set(rows.map((row) => row.comment_id))).toEqual(new Set(posted.keys()));
    for (const row of rows) expect(row.recipient_id).toBe(mentioned[posted.get(row.comment_id)!]!.user.id);

    // Every stream saw each of its user's notifications once, across its reopenings.
    await pause(1_000);
    await Promise.all(streams.map((stream) => stream.stop()));
    for (const [who, stream] of streams.entries()) {
      const expected = rows.filter((row) => row.recipient_id === mentioned[who]!.user.id).map((row) => row.id);
      expect(
        stream.seen.length,
        `${mentioned[who]!.user.username}: seen ${stream.seen.length} of ${expected.length}`,
      ).toBe(new Set(stream.seen).size);
      expect(new Set(stream.seen)).toEqual(new Set(expected));
      // Its instance stopped under it at least once.
      expect(stream.opened()).toBeGreaterThan(1);
    }
  }, 300_000);
});
