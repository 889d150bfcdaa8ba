// A rolling restart, the bench's `rolling` part (`BENCH_ONLY=rolling npm run bench`, and
// docs/architecture.md §10): a system of its own on spare ports (offset 1500) with two instances of every service.
// While
// clients post mentioned comments (no Idempotency-Key: a client that never retries), read a comment list
// and hold one notification stream per mentioned user, each instance in turn gets SIGTERM and is started
// again. Counted: every request and every answer that is not 2xx (or a failed connection), every comment
// answered 201 without exactly one notification, and every notification a stream missed or saw twice.
import pg from 'pg';
import { dropDatabase, removeExchangeFamily } from '@recipes/testing/cleanup';
import { followNotifications } from '@recipes/testing/sse';
import { register } from './seed.mjs';
import { startSystem } from '../scripts/system.mjs';

const NAME = 'recipes_bench_rolling';
const PORT_OFFSET = 1500;
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SERVICES = ['users', 'content', 'comments', 'collections', 'notifications'];
const MENTIONED = 4;
/** Each client's pause between requests: a steady load well under capacity, as a deploy would meet. */
const CLIENT_PAUSE_MS = 20;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task(i)` one after another until stopped. */
function loop(task) {
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) await task(i);
  })();
  return async () => {
    stopped = true;
    await done;
  };
}

export async function rollingRestart() {
  await removeExchangeFamily(AMQP_URL, `recipes.${NAME}`);
  const system = await startSystem({
    name: NAME,
    portOffset: PORT_OFFSET,
    amqpUrl: AMQP_URL,
    replicas: 2,
    readyWithinMs: 90_000,
    logs: process.env.BENCH_LOGS ?? 'ignore',
    env: {
      RATE_LIMIT_ENABLED: 'false',
      COMMENT_LIMIT_PER_MINUTE: '100000000',
      NOTIFICATION_BUDGET_PER_HOUR: '100000000',
      REGISTER_LIMIT_PER_ADDRESS: '1000000',
      // Ten instances, and an eleventh while one starts again, each with its pool and a LISTEN connection, beside
      // the bench's own system (up to 61 connections), within PostgreSQL's 100 (docs/configuration.md): at 10 a
      // pool, comments were refused a connection ("too many clients") and answered 503.
      DATABASE_POOL_MAX: '3',
    },
  });
  const db = new pg.Pool({ connectionString: system.databaseUrl, max: 2 });
  try {
    const api = `${system.urlOf('gateway')}/api`;
    const suffix = Date.now().toString(36);
    const author = await register(system.urlOf, `rolling_a_${suffix}`);
    const mentioned = [];
    for (let i = 0; i < MENTIONED; i++) mentioned.push(await register(system.urlOf, `rolling_${i}_${suffix}`));
    const recipe = await fetch(`${api}/recipes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Rolling', cameraModel: 'X100V', filmSimulation: 'Acros' }),
    }).then((response) => response.json());

    const failures = [];
    let requests = 0;
    let restarting = 'no restart';
    const call = async (what, path, init) => {
      requests += 1;
      try {
        const response = await fetch(`${api}${path}`, init);
        const body = await response.text();
        // With the request's id and the instance restarting, for the logs (BENCH_LOGS=inherit).
        if (response.status >= 300)
          failures.push(
            `${what}: ${response.status} during ${restarting} (request ${response.headers.get('x-request-id')}) ${body.slice(0, 200)}`,
          );
        return response.status === 201 ? JSON.parse(body) : undefined;
      } catch (error) {
        failures.push(`${what}: ${error.message}`);
        return undefined;
      }
    };
    const streams = mentioned.map((account) =>
      followNotifications(`${api}/notifications/stream`, { authorization: `Bearer ${account.token}` }, (why) =>
        failures.push(`stream: ${why}`),
      ),
    );
    await Promise.all(streams.map((stream) => stream.ready));
    const posted = new Map();
    const clients = [
      ...[0, 1].map((writer) =>
        loop(async (i) => {
          const who = (2 * i + writer) % MENTIONED;
          const created = await call('comment', `/recipes/${recipe.recipe.id}/comments`, {
            method: 'POST',
            headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ content: `Rolling @${mentioned[who].user.username} (${writer}.${i})` }),
          });
          if (created) posted.set(created.comment.id, mentioned[who].user.id);
          await pause(CLIENT_PAUSE_MS);
        }),
      ),
      loop(async () => {
        await call('comment list', `/recipes/${recipe.recipe.id}/comments`);
        await pause(CLIENT_PAUSE_MS);
      }),
    ];

    const startedAt = performance.now();
    await pause(1_000);
    for (const service of SERVICES) {
      for (const instance of [0, 1]) {
        restarting = `${service}#${instance}`;
        await system.process(service, instance).restart();
        restarting = `after ${service}#${instance}`;
        await pause(500);
      }
    }
    await pause(1_000);
    await Promise.all(clients.map((stop) => stop()));
    const seconds = +((performance.now() - startedAt) / 1000).toFixed(1);

    // Every comment answered 201 notified once: waited for until the count holds still.
    const notifications = async () =>
      (await db.query('SELECT comment_id, recipient_id, id FROM notifications.notifications')).rows;
    let rows = await notifications();
    for (let stableSince = Date.now(), last = -1; Date.now() - stableSince < 2_000; await pause(200)) {
      rows = await notifications();
      if (rows.length !== last) [last, stableSince] = [rows.length, Date.now()];
    }
    const perComment = new Map();
    for (const row of rows) perComment.set(row.comment_id, [...(perComment.get(row.comment_id) ?? []), row]);
    await pause(1_000);
    await Promise.all(streams.map((stream) => stream.stop()));
    let streamMissed = 0;
    let streamDoubled = 0;
    for (const [who, stream] of streams.entries()) {
      const expected = new Set(rows.filter((row) => row.recipient_id === mentioned[who].user.id).map((row) => row.id));
      const seen = new Set(stream.seen);
      streamDoubled += stream.seen.length - seen.size;
      streamMissed += [...expected].filter((id) => !seen.has(id)).length;
    }
    return {
      restarts: SERVICES.length * 2,
      seconds,
      requests,
      errors: failures.length,
      errorKinds: failures.slice(0, 5).join('; '),
      posted: posted.size,
      lost: [...posted.keys()].filter((id) => !perComment.has(id)).length,
      doubled: [...perComment.values()].filter((list) => list.length > 1).length,
      streamReopens: streams.reduce((sum, stream) => sum + stream.opened() - 1, 0),
      streamMissed,
      streamDoubled,
    };
  } finally {
    await db.end();
    await system.stop();
    await removeExchangeFamily(AMQP_URL, `recipes.${NAME}`);
    await dropDatabase(DATABASE_URL, NAME);
  }
}
