import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { startTestSystem } from '../support/system.js';
import { type Api, apiOf, databaseOf, type Reply, settlesAt, statusCounts, unlimited } from './support.js';

/**
 * SIGTERM to one of two instances under load: it finishes the requests and events it has, and the
 * gateway sends the requests that come after it stopped listening to the other instance. No request
 * fails and every mention becomes a notification, once.
 */
const name = 'recipes_fault_shutdown';

let system: StartedSystem;
let api: Api;
let db: ReturnType<typeof databaseOf>;

beforeAll(async () => {
  system = await startTestSystem({
    name,
    portOffset: 2700,
    replicas: 2,
    env: unlimited,
  });
  api = apiOf(system);
  db = databaseOf(system);
}, 90_000);
afterAll(async () => {
  await db?.close();
  await system?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('loses no request and no event when an instance of comments and one of notifications get SIGTERM under load', async () => {
  const [ada, bob] = await Promise.all([api.register('shutdown_ada'), api.register('shutdown_bob')]);
  const recipeId = await api.recipe(ada);

  // Writes that each publish an event, and reads of both terminated services, from 8 clients at once.
  const replies: Array<Reply & { what: string }> = [];
  let loading = true;
  const load = Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let n = 0; loading; n += 1) {
        const [what, reply] =
          client % 4 === 3
            ? ['read notifications', await api.call('GET', '/notifications?limit=1', undefined, bob.token)]
            : client % 4 === 2
              ? ['read comments', await api.call('GET', `/recipes/${recipeId}/comments?limit=1`)]
              : ['mention', await api.mention(ada, recipeId, bob, n)];
        replies.push({ what, ...reply });
      }
    }),
  );

  await sleep(1_000);
  const terminated = [system.process('comments', 1)!, system.process('notifications', 1)!];
  const exits = await Promise.all(terminated.map((instance) => instance.kill('SIGTERM')));
  // Load goes on against the remaining instances, which the gateway still lists first every other time.
  await sleep(1_500);
  loading = false;
  await load;

  expect(exits, 'both exited by themselves, in time').toEqual([
    { code: 0, signal: null },
    { code: 0, signal: null },
  ]);
  const failures = replies
    .filter((reply) => reply.status >= 300)
    .map(({ what, status, body }) => ({ what, status, body }));
  expect(failures).toEqual([]);
  const mentions = replies.filter((reply) => reply.what === 'mention');
  expect(statusCounts(mentions)).toEqual({ 201: mentions.length });
  expect(mentions.length).toBeGreaterThan(50);

  await settlesAt(() => api.unreadCount(bob), mentions.length, { timeoutMs: 15_000 });
  expect(await db.count('SELECT count(*)::int AS count FROM notifications.notifications')).toBe(mentions.length);
  expect(await db.count('SELECT count(*)::int AS count FROM comments.outbox')).toBe(0);
}, 120_000);
