import { eventually, sharedServer } from '@recipes/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { startTestSystem } from '../support/system.js';
import { type Api, apiOf, databaseOf, type Reply, settlesAt, statusCounts, unlimited } from './support.js';

/**
 * PostgreSQL stopped and started again under light load: every service says it is not ready while the
 * database is gone, recovers without being restarted, and every mention stored before, during or after
 * becomes exactly one notification. Stops the shared database for a few seconds: other test files lose it too.
 */
const name = 'recipes_fault_database';

let system: StartedSystem;
let api: Api;
let db: ReturnType<typeof databaseOf>;
const postgres = sharedServer('postgres');
let databaseStopped = false;

beforeAll(async () => {
  system = await startTestSystem({ name, portOffset: 2500, env: unlimited });
  api = apiOf(system);
  db = databaseOf(system);
}, 90_000);
afterAll(async () => {
  try {
    // Whatever happened above, the database runs again for whoever comes next.
    if (databaseStopped) await postgres.start();
  } finally {
    // The system goes too, also when the server could not be started again.
    await db?.close();
    await system?.stop();
  }
}, 90_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const backends = () => system.processes.filter((p) => p.service !== 'gateway');
const readiness = (url: string) =>
  fetch(`${url}/health/ready`).then(
    (response) => response.status,
    () => 0,
  );

it('reports not ready while the database is down, recovers by itself, and turns every stored mention into one notification', async () => {
  const [ada, bob] = await Promise.all([api.register('database_ada'), api.register('database_bob')]);
  const recipeId = await api.recipe(ada);
  const pids = system.processes.map((p) => p.pid);

  // Light load: one mention every 50 ms or so, before, during and after the outage.
  const replies: Array<Reply & { phase: string }> = [];
  let phase = 'before';
  let loading = true;
  const load = (async () => {
    for (let n = 0; loading; n += 1) {
      const sentIn = phase;
      const reply = await api
        .mention(ada, recipeId, bob, n)
        .catch((error: Error) => ({ status: 0, body: error.message }));
      // A request sent just before the outage may meet it: it counts with the outage.
      replies.push({ ...reply, phase: sentIn === 'before' && phase !== 'before' ? phase : sentIn });
      await sleep(50);
    }
  })();
  await sleep(1_000);

  databaseStopped = true;
  phase = 'during';
  await postgres.stop();
  try {
    const notReady = await eventually(
      async () => {
        const states = await Promise.all(
          backends().map(async (p) => [`${p.service}#${p.instance}`, await readiness(p.url)] as const),
        );
        return states.every(([, status]) => status === 503) ? states : undefined;
      },
      10_000,
      100,
    );
    expect(notReady.length).toBe(5);
    await sleep(500);
  } finally {
    await postgres.start();
    databaseStopped = false;
  }
  phase = 'recovering';

  // Back without any restart: the pools make new connections, the relays and listeners start again.
  await eventually(
    async () =>
      (await Promise.all(backends().map((p) => readiness(p.url)))).every((status) => status === 200) ? true : undefined,
    30_000,
    200,
  );
  phase = 'after';
  await sleep(1_500);
  loading = false;
  await load;
  expect(system.processes.map((p) => p.running && p.pid)).toEqual(pids);

  const byPhase = (wanted: string) => replies.filter((reply) => reply.phase === wanted);
  expect(statusCounts(byPhase('before'))).toEqual({ 201: byPhase('before').length });
  expect(statusCounts(byPhase('after'))).toEqual({ 201: byPhase('after').length });
  expect(byPhase('after').length).toBeGreaterThan(5);
  // While the database is away a write cannot be served: 503, never an unexpected error.
  for (const reply of [...byPhase('during'), ...byPhase('recovering')])
    expect([201, 503], JSON.stringify(reply.body)).toContain(reply.status);

  // Each mention the comments service stored (whatever its client was told) notifies exactly once.
  const stored = await db.count('SELECT count(*)::int AS count FROM comments.recipe_comment_mentions');
  const created = replies.filter((reply) => reply.status === 201).map((reply) => reply.body.comment.id as string);
  expect(stored).toBeGreaterThanOrEqual(created.length);
  await settlesAt(() => db.count('SELECT count(*)::int AS count FROM notifications.notifications'), stored, {
    timeoutMs: 30_000,
  });
  expect(
    await db.count(
      'SELECT count(DISTINCT comment_id)::int AS count FROM notifications.notifications WHERE comment_id = ANY($1::uuid[])',
      [created],
    ),
  ).toBe(created.length);
  expect(await api.unreadCount(bob)).toBe(stored);
}, 120_000);
