import { brokerAdmin, sharedServer } from '@recipes/testing';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { startTestSystem } from '../support/system.js';
import {
  type Account,
  type Api,
  apiOf,
  databaseOf,
  inParallel,
  notificationsCount,
  queueOf,
  type Reply,
  settlesAt,
  statusCounts,
  unlimited,
} from './support.js';

/**
 * PostgreSQL stopped for five seconds in the middle of a burst of mentions from 25 clients. Events in
 * flight meet the outage in their handlers: they wait for the database instead of using up their
 * attempts, so none is dead-lettered, and every stored mention notifies exactly once. Stops the shared
 * database: other test files lose it too.
 */
const name = 'recipes_fault_outage_burst';
const CLIENTS = 25;
const OUTAGE_MS = 5_000;

let system: StartedSystem;
let api: Api;
let db: ReturnType<typeof databaseOf>;
let broker: Awaited<ReturnType<typeof brokerAdmin>>;
const postgres = sharedServer('postgres');
let databaseStopped = false;

beforeAll(async () => {
  system = await startTestSystem({ name, portOffset: 3500, env: unlimited });
  api = apiOf(system);
  db = databaseOf(system);
  broker = await brokerAdmin(inject('amqpUrl'));
}, 90_000);
afterAll(async () => {
  try {
    if (databaseStopped) await postgres.start();
  } finally {
    // The system goes too, also when the server could not be started again.
    await broker?.close();
    await db?.close();
    await system?.stop();
  }
}, 90_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('loses and doubles no notification, and dead-letters nothing, when the database stops for 5 s under a burst', async () => {
  const [author, ...mentioned] = await inParallel(CLIENTS + 1, 5, (i) => api.register(`burst_${i}`));
  const recipeId = await api.recipe(author!);

  // Each client mentions its own user, as fast as the system answers, until the burst ends.
  let bursting = true;
  const replies: Reply[] = [];
  const clients = mentioned.map(async (target: Account, client) => {
    for (let n = 0; bursting; n += 1) {
      replies.push(
        await api
          .mention(author!, recipeId, target, client * 10_000 + n)
          .catch((error: Error) => ({ status: 0, body: error.message })),
      );
    }
  });
  await sleep(800);
  databaseStopped = true;
  await postgres.stop();
  await sleep(OUTAGE_MS);
  await postgres.start();
  databaseStopped = false;
  // Long enough for every service to recover and for the burst to go on past the outage.
  await sleep(4_000);
  bursting = false;
  await Promise.all(clients);

  const created = replies.filter((reply) => reply.status === 201);
  expect(created.length, JSON.stringify(statusCounts(replies))).toBeGreaterThan(CLIENTS);
  for (const reply of replies) expect([201, 503, 504], JSON.stringify(reply.body)).toContain(reply.status);

  // Every mention the comments service stored, whatever its client was told, becomes one notification.
  const stored = await db.count('SELECT count(*)::int AS count FROM comments.recipe_comment_mentions');
  expect(stored).toBeGreaterThanOrEqual(created.length);
  await settlesAt(() => db.count(notificationsCount), stored, { timeoutMs: 60_000 });
  const createdIds = created.map((reply) => reply.body.comment.id as string);
  expect(await db.count(`${notificationsCount} WHERE comment_id = ANY($1::uuid[])`, [createdIds])).toBe(
    createdIds.length,
  );
  expect(await db.count('SELECT count(DISTINCT comment_id)::int AS count FROM notifications.notifications')).toBe(
    stored,
  );

  // The recipe's comment count caught up too: content's handler waited for the database as well.
  const comments = await db.count(
    "SELECT count(*)::int AS count FROM comments.comments WHERE target_type = 'recipe' AND target_id = $1",
    [recipeId],
  );
  await settlesAt(
    () => db.count('SELECT comment_count AS count FROM content.recipes WHERE id = $1', [recipeId]),
    comments,
    { timeoutMs: 30_000 },
  );

  for (const service of ['notifications', 'content']) {
    expect(await broker.messageCount(`${queueOf(name, service)}.dlq`), `${service} dead letters`).toBe(0);
  }
}, 180_000);
