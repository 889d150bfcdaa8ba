// What the push sender (services/notifications/src/push, wired as the service wires it) costs per push,
// against the real database: notifications stored one at a time at a fixed rate, and all at once, for
// recipients with one subscription each, beside the same stored for recipients with none. The writer and
// the local push service (libs/testing/src/push-service.ts: it checks VAPID and decrypts) run in a child
// process, so this process's CPU is the sender's alone. Prints, per push, the sender's CPU ms, its
// statements, and the database's CPU ms per stored notification with and without its push, in
// alternating rounds. Run alone: `nice node bench/micro/push-sender.mjs`; with `--cpu-prof` for a profile
// of the sender.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { newId } from '@recipes/contracts';
import { createPool, migrate, withTransaction } from '@recipes/db';
import { Registry } from '@recipes/metrics';
import { migrationSetsOf } from '@recipes/runtime';
import pg from 'pg';
import { cpuSample, cpuSpent } from '../cpu.mjs';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RECIPIENTS = 20;
const RATE = 50;
const SECONDS = 4;
const BURST = 200;
const ROUNDS = 3;
/** The author of every notification, whom the users read model knows. */
const ACTOR = '00000000-0000-4000-8000-00000000a000';
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const webPushLibrary = createRequire(new URL('../../services/notifications/package.json', import.meta.url))('web-push');
const notificationsDist = (path) => new URL(`../../services/notifications/dist/${path}`, import.meta.url).href;

/** The writer and the push service: stores notifications when asked, and says when their pushes came. */
async function world() {
  const { startLocalPushService } = await import('@recipes/testing/push-service');
  const { insertNotification } = await import(notificationsDist('repository/notifications.js'));
  const service = await startLocalPushService();
  let pool;
  let subscriptions = [];
  const received = () => subscriptions.reduce((sum, s) => sum + service.received(s.id).length, 0);
  const store = (recipientId) =>
    insertNotification(
      pool,
      newId(),
      { id: newId(), type: 'comment.mention.created' },
      {
        recipientId,
        type: 'mention_recipe_comment',
        actorId: ACTOR,
        contentType: 'recipe',
        contentId: newId(),
        commentId: newId(),
        createdAt: new Date().toISOString(),
      },
    );
  process.on('message', async (message) => {
    if (message.kind === 'setup') {
      pool = createPool({ connectionString: message.databaseUrl, schema: 'notifications', logger: silent, max: 4 });
      subscriptions = Array.from({ length: RECIPIENTS }, () => service.subscribe(message.publicKey));
      process.send({ kind: 'subscriptions', subscriptions });
    } else if (message.kind === 'run') {
      const { recipients, count, rate, pushed } = message;
      const expected = received() + (pushed ? count : 0);
      const started = performance.now();
      const writes = [];
      for (let i = 0; i < count; i += 1) {
        if (rate) {
          const wait = started + (i * 1000) / rate - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
        writes.push(store(recipients[i % recipients.length]));
      }
      await Promise.all(writes);
      while (received() < expected) await new Promise((resolve) => setTimeout(resolve, 5));
      process.send({ kind: 'done', violations: service.violations.length });
    } else if (message.kind === 'stop') {
      await pool.end();
      await service.close();
      process.disconnect();
    }
  });
}

async function main() {
  const { webPush } = await import(notificationsDist('push/index.js'));
  const { saveSubscription } = await import(notificationsDist('repository/push-subscriptions.js'));
  const { notificationsService } = await import(notificationsDist('service.js'));
  const { UserDirectory } = await import('@recipes/directory');
  const database = `micro_push_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const at = new URL(url);
  at.pathname = `/${database}`;
  const child = fork(new URL(import.meta.url), ['world'], { execArgv: [] });
  const ask = async (message, answer) => {
    child.send(message);
    for (;;) {
      const [reply] = await once(child, 'message');
      if (reply.kind === answer) return reply;
    }
  };
  let pool;
  let stop;
  let watcher;
  try {
    await migrate({
      databaseUrl: at.href,
      schema: 'notifications',
      sets: migrationSetsOf(notificationsService),
      logger: silent,
    });
    pool = createPool({ connectionString: at.href, schema: 'notifications', logger: silent });
    await pool.query(`INSERT INTO users (id, username, avatar_url, revision) VALUES ($1, 'push_actor', NULL, 1)`, [
      ACTOR,
    ]);
    const vapid = webPushLibrary.generateVAPIDKeys();
    const { subscriptions } = await ask(
      { kind: 'setup', databaseUrl: at.href, publicKey: vapid.publicKey },
      'subscriptions',
    );
    const subscribed = subscriptions.map(() => newId());
    const unsubscribed = subscriptions.map(() => newId());
    for (const [i, subscription] of subscriptions.entries()) {
      await withTransaction(pool, (tx) =>
        saveSubscription(
          tx,
          {
            id: newId(),
            userId: subscribed[i],
            sessionId: null,
            endpoint: subscription.endpoint,
            ...subscription.keys,
          },
          10,
        ),
      );
    }

    // Counts the statements the sender sends on the pool (the listener's connection is its own).
    let statements = 0;
    const query = pool.query.bind(pool);
    pool.query = (...args) => ((statements += 1), query(...args));
    const push = webPush({
      pool,
      config: {
        PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
        PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
        PUSH_VAPID_SUBJECT: 'mailto:push@localhost',
        PUSH_ALLOW_PRIVATE_ENDPOINTS: true,
        PUSH_TTL_SECONDS: 86_400,
        DATABASE_URL: at.href,
      },
      directory: new UserDirectory({ pool, usersUrl: 'http://127.0.0.1:9' }),
      sessionEnds: { refuses: () => false, onEnded: () => () => undefined },
      logger: silent,
    });
    stop = push.start(new Registry());

    watcher = new pg.Client({ connectionString: at.href });
    await watcher.connect();
    const settled = async () => {
      // The last pushes' finishing statements, after the push service took them.
      for (;;) {
        const { rows } = await watcher.query('SELECT count(*)::int AS n FROM notifications.push_deliveries');
        if (rows[0].n === 0 && pool.idleCount === pool.totalCount) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const runs = {
      [`none: ${RATE}/s, no subscription`]: {
        recipients: unsubscribed,
        count: RATE * SECONDS,
        rate: RATE,
        pushed: false,
      },
      [`trickle: ${RATE}/s, one subscription each`]: {
        recipients: subscribed,
        count: RATE * SECONDS,
        rate: RATE,
        pushed: true,
      },
      [`burst: ${BURST} at once, one subscription each`]: {
        recipients: subscribed,
        count: BURST,
        rate: 0,
        pushed: true,
      },
    };
    const figures = Object.fromEntries(
      Object.keys(runs).map((name) => [name, { sender: [], statements: [], postgres: [] }]),
    );
    // Warm-up: connections, prepared statements, the push service's origin signed for.
    await ask({ kind: 'run', ...Object.values(runs)[1], count: 40 }, 'done');
    await settled();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [name, run] of Object.entries(runs)) {
        const [cpu, postgresBefore, counted] = [
          process.cpuUsage(),
          cpuSample({ processes: [] }, { database }),
          statements,
        ];
        const { violations } = await ask({ kind: 'run', ...run }, 'done');
        await settled();
        if (violations > 0) throw new Error(`${violations} pushes refused by the push service`);
        const used = process.cpuUsage(cpu);
        const postgres = cpuSpent(postgresBefore, cpuSample({ processes: [] }, { database })).postgres ?? 0;
        const figure = figures[name];
        figure.sender.push(((used.user + used.system) / 1000 / run.count).toFixed(3));
        figure.statements.push(((statements - counted) / run.count).toFixed(2));
        figure.postgres.push((postgres / run.count).toFixed(2));
      }
    }
    console.table(
      Object.entries(figures).map(([name, figure]) => ({
        run: name,
        'sender CPU ms per notification': figure.sender.join(' / '),
        'sender statements per notification': figure.statements.join(' / '),
        'PostgreSQL CPU ms per notification': figure.postgres.join(' / '),
      })),
    );
  } finally {
    await stop?.();
    await pool?.end();
    await watcher?.end();
    if (child.connected) {
      child.send({ kind: 'stop' });
      await once(child, 'exit');
    }
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv[2] === 'world') await world();
else await main();
