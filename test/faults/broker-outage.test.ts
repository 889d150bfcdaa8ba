import { sharedServer } from '@recipes/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { startTestSystem } from '../support/system.js';
import { type Api, apiOf, databaseOf, inParallel, settlesAt, statusCounts, unlimited } from './support.js';

/**
 * RabbitMQ stopped under a running system: comments are still accepted (their events wait in the
 * outbox), and once the broker is back every mention becomes one notification, with no process
 * restarted by hand. Stops the shared broker for a few seconds: other test files lose it too.
 */
const name = 'recipes_fault_broker';
const MENTIONS = 500;

let system: StartedSystem;
let api: Api;
let db: ReturnType<typeof databaseOf>;
const rabbitmq = sharedServer('rabbitmq');
let brokerStopped = false;

beforeAll(async () => {
  system = await startTestSystem({ name, portOffset: 2300, env: unlimited });
  api = apiOf(system);
  db = databaseOf(system);
}, 90_000);
afterAll(async () => {
  try {
    // Whatever happened above, the broker runs again for whoever comes next.
    if (brokerStopped) await rabbitmq.start();
  } finally {
    // The system goes too, also when the server could not be started again.
    await db?.close();
    await system?.stop();
  }
}, 90_000);

it('keeps every mention made while the broker is down and delivers each once when it is back', async () => {
  const [ada, bob] = await Promise.all([api.register('broker_ada'), api.register('broker_bob')]);
  const recipeId = await api.recipe(ada);
  const pids = system.processes.map((p) => p.pid);

  brokerStopped = true;
  await rabbitmq.stop();
  let replies;
  try {
    replies = await inParallel(MENTIONS, 16, (n) => api.mention(ada, recipeId, bob, n));
    // The events are waiting in the comments outbox, not lost in a publisher's buffer.
    expect(await db.count('SELECT count(*)::int AS count FROM comments.outbox')).toBeGreaterThan(0);
  } finally {
    await rabbitmq.start();
    brokerStopped = false;
  }
  expect(statusCounts(replies)).toEqual({ [201]: MENTIONS });

  const tookMs = await settlesAt(() => api.unreadCount(bob), MENTIONS, { timeoutMs: 30_000, stableMs: 2_000 });
  expect(tookMs).toBeLessThan(30_000);
  expect(await db.count('SELECT count(*)::int AS count FROM notifications.notifications')).toBe(MENTIONS);
  expect(await db.count('SELECT count(*)::int AS count FROM comments.outbox')).toBe(0);
  // Every process recovered by itself: none was restarted.
  expect(system.processes.map((p) => p.running && p.pid)).toEqual(pids);
}, 120_000);
