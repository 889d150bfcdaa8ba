// The floors the bench's `writepath` part (bench/write-path.mjs) measures the system against, in plain Node
// (bench/reference/write-path.mjs): their tables (copies of the services', with their columns, defaults,
// checks and indexes, in a schema of each floor's own in the bench's database), their processes, their
// exchange and queues, and the `side` (write-path-runs.mjs) each serves the write path as.
// - `reference`: the plain floor, two processes; POSTs and streams straight to them.
// - `architecture`: the plain floor plus what the system's design requires, three processes behind a
//   bare proxy (bench/reference/proxy.mjs), which takes the POSTs and the streams.
import { setTimeout as pause } from 'node:timers/promises';
import { removeExchangeFamily } from '@recipes/testing/cleanup';
import { cpuSample } from './cpu.mjs';
import { startProcess } from './reference-phase.mjs';
import { STREAM_PATH } from './streams.mjs';
import { side } from './write-path-runs.mjs';

export const FLOORS = {
  reference: { floor: 'plain', schema: 'bench_writepath', roles: ['comments', 'notifications'] },
  architecture: {
    floor: 'architecture',
    schema: 'bench_writepath_architecture',
    roles: ['comments', 'notifications', 'counts'],
    proxy: true,
  },
};
/** How a floor's processes are named in the CPU and round-trip tables. */
export const floorPart = (name, role) => `${role} (${name})`;

/** Resolves once process `pid` has exited. */
async function exited(pid) {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await pause(50);
  }
}

/**
 * Floor `name`'s tables: the users read model and the recipe as the comments service has them, and the
 * architecture's the content service's counted comments, a comment count of the recipe's own, and the
 * recipients' open streams counted in their counts rows (write-path-notifications.mjs says why).
 */
async function createTables(pool, name, recipeId) {
  const { schema } = FLOORS[name];
  await pool.query(`CREATE SCHEMA ${schema}`);
  const copies = {
    users: 'comments.users',
    content_items: 'comments.content_items',
    comments: 'comments.comments',
    outbox: 'comments.outbox',
    processed_events: 'notifications.processed_events',
    notifications: 'notifications.notifications',
    notification_counts: 'notifications.notification_counts',
    ...(name === 'architecture' ? { recipe_comments: 'content.recipe_comments' } : {}),
  };
  for (const [table, source] of Object.entries(copies))
    await pool.query(`CREATE TABLE ${schema}.${table} (LIKE ${source} INCLUDING ALL)`);
  // LIKE leaves foreign keys out: the mention rows keep theirs.
  await pool.query(
    `CREATE TABLE ${schema}.recipe_comment_mentions (LIKE comments.recipe_comment_mentions ` +
      `INCLUDING ALL, FOREIGN KEY (comment_id) REFERENCES ${schema}.comments)`,
  );
  await pool.query(`INSERT INTO ${schema}.users SELECT * FROM comments.users`);
  await pool.query(`INSERT INTO ${schema}.content_items SELECT * FROM comments.content_items WHERE id = $1`, [
    recipeId,
  ]);
  if (name !== 'architecture') return;
  await pool.query(
    `ALTER TABLE ${schema}.notification_counts ADD COLUMN streams integer NOT NULL DEFAULT 0 CHECK (streams >= 0)`,
  );
  await pool.query(
    `CREATE TABLE ${schema}.comment_counts (recipe_id uuid PRIMARY KEY, comment_count integer NOT NULL DEFAULT 0)`,
  );
  await pool.query(`INSERT INTO ${schema}.comment_counts (recipe_id) VALUES ($1)`, [recipeId]);
}

/**
 * Floor `name` on `ports` (a port per role, and `proxy`), its exchange named as its schema, serving
 * `workload` on the recipe at `path` of `pool`'s database (`database`); `publicKeyFile` checks the tokens.
 * `start(databaseUrlOf)` starts its processes (each role's pool on `databaseUrlOf(part)`), `stop()` ends
 * them; `parts`: its processes with a database pool, as the tables name them; `side`: what it serves.
 */
export function floorOf(name, { pool, database, ports, amqpUrl, publicKeyFile, workload, path }) {
  const { floor, schema, roles, proxy } = FLOORS[name];
  const processes = {};
  const entry = `http://127.0.0.1:${proxy ? ports.proxy : ports.comments}`;
  const streamsAt = `http://127.0.0.1:${proxy ? ports.proxy : ports.notifications}`;
  const start = async (databaseUrlOf) => {
    for (const role of roles) {
      processes[role] = await startProcess('bench/reference/write-path.mjs', ports[role], {
        FLOOR: floor,
        ROLE: role,
        DATABASE_URL: databaseUrlOf(floorPart(name, role)),
        AMQP_URL: amqpUrl,
        EXCHANGE: schema,
        SCHEMA: schema,
        JWT_PUBLIC_KEY_FILE: publicKeyFile,
      });
    }
    if (!proxy) return;
    processes.proxy = await startProcess('bench/reference/proxy.mjs', ports.proxy, {
      ROUTES: JSON.stringify([
        { prefix: '/api/recipes', base: processes.comments.url },
        { prefix: '/api/notifications', base: processes.notifications.url, streams: true },
      ]),
    });
  };
  const stop = async () => {
    for (const role of Object.keys(processes)) {
      processes[role].stop();
      await exited(processes[role].pid);
      delete processes[role];
    }
  };
  // The architecture's notifications process counts the open streams: closed, they are forgotten once it
  // has heard of it.
  const closeAll = async (streams) => {
    for (const stream of streams) stream.close();
    if (!proxy) return;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await pause(100)) {
      const { rows } = await pool.query(
        `SELECT coalesce(sum(streams), 0)::int AS n FROM ${schema}.notification_counts`,
      );
      if (rows[0].n === 0) return;
    }
    throw new Error(`the ${name} floor still counts open streams a minute after they were closed`);
  };
  const cpuNow = () =>
    cpuSample(
      { processes: [] },
      {
        extra: Object.fromEntries(Object.entries(processes).map(([role, { pid }]) => [floorPart(name, role), pid])),
        database,
      },
    );
  return {
    name,
    parts: roles.map((role) => floorPart(name, role)),
    start,
    stop,
    side: side(name, {
      postUrl: `${entry}${path}`,
      streamUrl: () => `${streamsAt}${STREAM_PATH}`,
      workload,
      closeAll,
      cpuNow,
    }),
  };
}

/**
 * What the architecture's floor did over the whole part, once it has all settled (10 s at most): the comments
 * stored, the recipe's count of them, and the notifications stored, by type. Each comment should be counted
 * once and make two notifications, a mention and its owner's `comment_recipe`.
 */
export async function architectureWork(pool) {
  const { schema } = FLOORS.architecture;
  let work;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await pause(200)) {
    const { rows } = await pool.query(
      `SELECT (SELECT count(*) FROM ${schema}.comments)::int AS comments,
              (SELECT sum(comment_count) FROM ${schema}.comment_counts)::int AS counted,
              (SELECT count(*) FROM ${schema}.notifications WHERE type = 'mention_recipe_comment')::int AS mentions,
              (SELECT count(*) FROM ${schema}.notifications WHERE type = 'comment_recipe')::int AS "toOwner"`,
    );
    work = rows[0];
    if (work.counted === work.comments && work.mentions === work.comments && work.toOwner === work.comments) break;
  }
  return {
    ...work,
    complete: work.counted === work.comments && work.mentions === work.comments && work.toOwner === work.comments,
  };
}

/** Drops what the floors' runs left in the database and the broker (an interrupted run's too), then, with `recipeId`, makes their tables anew. */
export async function resetFloors(pool, amqpUrl, recipeId) {
  for (const [name, { schema }] of Object.entries(FLOORS)) {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await removeExchangeFamily(amqpUrl, schema);
    if (recipeId) await createTables(pool, name, recipeId);
  }
}
