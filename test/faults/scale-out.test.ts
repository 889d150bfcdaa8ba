import { brokerAdmin } from '@recipes/testing';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { startTestSystem } from '../support/system.js';
import {
  type Account,
  type Api,
  apiOf,
  databaseOf,
  inParallel,
  queueOf,
  settlesAt,
  statusCounts,
  unlimited,
} from './support.js';

/**
 * Two instances of every backend service behind the one gateway: two outbox relays on each outbox and
 * two consumers on each queue. Mentions and tags still notify exactly once, and both instances work.
 */
const name = 'recipes_fault_scale';
const backends = ['users', 'content', 'comments', 'collections', 'notifications'];

let system: StartedSystem;
let api: Api;
let db: ReturnType<typeof databaseOf>;

beforeAll(async () => {
  system = await startTestSystem({
    name,
    portOffset: 2600,
    replicas: 2,
    // Info level logs each request a process answers: how this test sees which instance did the work.
    // Eleven processes share PostgreSQL's 100 connections with the rest of the machine.
    env: { ...unlimited, LOG_LEVEL: 'info', DATABASE_POOL_MAX: '4' },
    logs: 'pipe',
  });
  api = apiOf(system);
  db = databaseOf(system);
}, 90_000);
afterAll(async () => {
  await db?.close();
  await system?.stop();
});

/** Requests under /api a process answered, from its request log. */
function apiRequestsServedBy(service: string, instance: number): number {
  return system.process(service, instance)!.lines.filter((line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string; req?: { url?: string } };
      return entry.msg === 'request completed' && entry.req?.url?.startsWith('/api/') === true;
    } catch {
      return false;
    }
  }).length;
}

it('notifies each mention and tag exactly once, with both instances of every service at work', async () => {
  const COMMENTS = 120;
  const POSTS = 30;
  const [ada, bob, cy] = await Promise.all(
    ['scale_ada', 'scale_bob', 'scale_cy'].map((username) => api.register(username)),
  );
  const recipeId = await api.recipe(ada!);

  const comments = await inParallel(COMMENTS, 8, (i) =>
    api.call(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `@${bob!.user.username} and @${cy!.user.username}, look (${i})` },
      ada!.token,
    ),
  );
  const posts = await inParallel(POSTS, 8, (i) =>
    api.call('POST', '/posts', { title: `Tagged ${i}`, taggedUsernames: [bob!.user.username] }, ada!.token),
  );
  expect(statusCounts([...comments, ...posts])).toEqual({ 201: COMMENTS + POSTS });

  const unread = (account: Account) => () => api.unreadCount(account);
  await settlesAt(unread(bob!), COMMENTS + POSTS, { timeoutMs: 15_000 });
  await settlesAt(unread(cy!), COMMENTS, { timeoutMs: 5_000, stableMs: 0 });
  expect(await api.unreadCount(ada!)).toBe(0);
  expect(await db.count('SELECT count(*)::int AS count FROM notifications.notifications')).toBe(2 * COMMENTS + POSTS);
  // The relays emptied every outbox between them.
  const outboxes = backends.map((service) => `(SELECT count(*) FROM ${service}.outbox)`).join(' + ');
  expect(await db.count(`SELECT (${outboxes})::int AS count`)).toBe(0);

  // The gateway spread the requests over both instances of each service it called.
  for (const service of ['users', 'content', 'comments', 'notifications']) {
    const served = [0, 1].map((instance) => apiRequestsServedBy(service, instance));
    expect(
      served.every((count) => count > 0),
      `${service} requests per instance: ${served.join(', ')}`,
    ).toBe(true);
  }

  // Each queue has a consumer in each instance, so both take their share of the events.
  const admin = await brokerAdmin(inject('amqpUrl'));
  try {
    const consumers = Object.fromEntries(
      await Promise.all(
        backends.map(async (service) => [service, await admin.consumerCount(queueOf(name, service))] as const),
      ),
    );
    expect(consumers).toMatchObject({ content: 2, collections: 2, notifications: 2 });
    for (const [service, count] of Object.entries(consumers)) if (count !== undefined) expect(count, service).toBe(2);
    for (const [service, count] of Object.entries(consumers)) {
      if (count !== undefined)
        expect((await admin.channel.checkQueue(`${queueOf(name, service)}.dlq`)).messageCount, `${service}.dlq`).toBe(
          0,
        );
    }
  } finally {
    await admin.close();
  }
}, 120_000);
