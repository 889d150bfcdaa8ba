// The write path of a mentioned comment against its floor, the bench's `writepath` part: the system
// (through the gateway) and bench/reference/write-path.mjs (plain Node, the same guarantees, the same
// tables' shapes in a schema of its own, its own exchange and queue), under the same open loop: comment i
// written by seeded user i % 20 and mentioning another, i % 20 of 20 more, whose streams are open. (By
// one author, the system's comments would take turns on that author's notification budget, a row each
// comment's transaction locks until it commits.) For each:
// - capacity: the highest rate at which every POST is answered 201, every notification reaches its
//   stream once, and the p99 from a POST's sending to its `event: notification` is under 250 ms
//   (overload.mjs's search; each step waits for its stragglers, so the next starts without a backlog);
// - CPU ms per mentioned comment by process (cpu.mjs), both at the same rate: half the lower capacity;
//   and, just before, what each process spends a second idle;
// - the system alone at that rate, 20 authors each on their own recipe (one notification: the mention)
//   and each on another's (two: the mention and the owner's `comment_recipe`): CPU ms per comment and
//   per notification, each run's taken once all its notifications are stored;
// - round trips to PostgreSQL per mentioned comment, by process and statement (round-trips.mjs): the
//   system's services restarted with their DATABASE_URL through the counting proxy, and back after; the
//   reference likewise. What each process sends while idle, measured just before for as long, is taken off.
import { Agent } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';
import { removeExchangeFamily } from '@recipes/testing/cleanup';
import { notificationsOf, recipesOf } from './authors.mjs';
import { cpuPer, cpuSample } from './cpu.mjs';
import { latencyFigures } from './mentions.mjs';
import { schedule, tally } from './open-loop.mjs';
import { CAPACITY_P99_MS, searchCapacity } from './overload.mjs';
import { startProcess } from './reference-phase.mjs';
import { startRoundTripCounter } from './round-trips.mjs';
import { closeStreams, openStreams, STREAM_PATH } from './streams.mjs';

/** The reference's schema in the bench's database, and its exchange (with its queues, `<exchange>.notifications`). */
const SCHEMA = 'bench_writepath';
const EXCHANGE = 'bench_writepath';
const MENTIONED_USERS = 20;
const AUTHORS = 20;
/** The system's processes with a database pool: those the round-trip count restarts through its proxy. */
const DATABASE_SERVICES = ['users', 'content', 'comments', 'collections', 'notifications'];
const REFERENCE_ROLES = ['comments', 'notifications'];
/** A notification not on its stream this long after the one before it counts as lost. */
const STRAGGLER_MS = 10_000;

const referencePart = (role) => `${role} (reference)`;

/**
 * The reference's tables, copied from the services' with their columns, defaults, checks and indexes; the users read
 * model and the recipe as the comments service has them.
 */
async function createReferenceTables(pool, recipeId) {
  await pool.query(`CREATE SCHEMA ${SCHEMA}`);
  const copies = {
    users: 'comments.users',
    content_items: 'comments.content_items',
    comments: 'comments.comments',
    outbox: 'comments.outbox',
    processed_events: 'notifications.processed_events',
    notifications: 'notifications.notifications',
    notification_counts: 'notifications.notification_counts',
  };
  for (const [table, source] of Object.entries(copies))
    await pool.query(`CREATE TABLE ${SCHEMA}.${table} (LIKE ${source} INCLUDING ALL)`);
  // LIKE leaves foreign keys out: the mention rows keep theirs.
  await pool.query(
    `CREATE TABLE ${SCHEMA}.recipe_comment_mentions (LIKE comments.recipe_comment_mentions ` +
      `INCLUDING ALL, FOREIGN KEY (comment_id) REFERENCES ${SCHEMA}.comments)`,
  );
  await pool.query(`INSERT INTO ${SCHEMA}.users SELECT * FROM comments.users`);
  await pool.query(`INSERT INTO ${SCHEMA}.content_items SELECT * FROM comments.content_items WHERE id = $1`, [
    recipeId,
  ]);
}

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
 * One way of serving the write path: where comments are posted and streams opened, the streams of the
 * mentioned users, when each comment's notification arrived on them, and how to sample the CPU of the
 * processes that serve it. `workload`: the mentioned users, their stream tokens, the authors' headers.
 */
function side(name, { postUrl, streamUrl, workload, closeAll, cpuNow }) {
  const served = { name, postUrl, workload, arrivedAt: new Map(), duplicates: 0, streams: [], cpuNow };
  served.open = async () => {
    served.streams = await openStreams(streamUrl(), workload.streamTokens, {
      onEvent: () => (event, at) => {
        if (event.event !== 'notification') return;
        const { commentId } = JSON.parse(event.data);
        if (served.arrivedAt.has(commentId)) served.duplicates += 1;
        else served.arrivedAt.set(commentId, at);
      },
    });
  };
  served.close = async () => {
    await closeAll(served.streams);
    served.streams = [];
  };
  return served;
}

/** Waits until every comment's notification is on its stream, or none has come for STRAGGLER_MS. */
async function allArrived(served, comments) {
  let arrived = -1;
  for (let lastProgress = performance.now(); performance.now() - lastProgress < STRAGGLER_MS; await pause(50)) {
    const now = comments.filter(({ commentId }) => served.arrivedAt.has(commentId)).length;
    if (now === comments.length) return;
    if (now > arrived) [arrived, lastProgress] = [now, performance.now()];
  }
}

/**
 * Open loop at `rate` for `seconds`: comment i by author i % 20, mentioning user i % 20; then its stragglers. The
 * POSTs'
 * answers (open-loop.mjs `tally`), and from each comment's sending to its `event: notification`
 * (mentions.mjs `latencyFigures`: `errors` counts those that never arrived, failed POSTs included).
 * `workload` (the side's by default) may give each author a `postUrls` of its own; `createdIds` gets
 * the ids of the comments made.
 */
async function mentionRun(served, { rate, seconds, workload = served.workload, createdIds = [] }) {
  const agent = new Agent({ keepAlive: true }); // closed after, as every phase closes its own
  const sentAt = [];
  const { mentioned, authorHeaders, postUrls } = workload;
  const next = (i) => {
    sentAt[i] = performance.now();
    const author = i % authorHeaders.length;
    const body = JSON.stringify({ content: `Write path ${i} for @${mentioned[i % mentioned.length].username}` });
    return {
      method: 'POST',
      url: postUrls?.[author] ?? served.postUrl,
      headers: authorHeaders[author],
      body,
      keepBody: true,
    };
  };
  const duplicatesBefore = served.duplicates;
  try {
    const { sentPerSecond, answers } = await schedule(next, [{ rate, seconds }], { agent });
    const comments = answers.flatMap((answer, i) =>
      answer.status === 201 ? [{ commentId: JSON.parse(answer.body).comment.id, sentAt: sentAt[i] }] : [],
    );
    createdIds.push(...comments.map((c) => c.commentId));
    await allArrived(served, comments);
    return {
      ...latencyFigures(comments, served.arrivedAt, answers.length, sentPerSecond[0]),
      created: comments.length,
      duplicates: served.duplicates - duplicatesBefore,
      posts: tally(answers),
    };
  } finally {
    agent.destroy();
  }
}

/** `searchCapacity` with steps of `mentionRun`; each step's figures. */
async function capacityOf(served, { start, stepSeconds, factor, refineSteps }) {
  const steps = [];
  const step = async (rate) => {
    const run = await mentionRun(served, { rate, seconds: stepSeconds });
    const pass =
      run.errors === 0 &&
      run.duplicates === 0 &&
      run.posts.ok === run.posts.answers &&
      run.p99Ms !== null &&
      run.p99Ms < CAPACITY_P99_MS &&
      run.requestsPerSecond >= 0.95 * rate;
    const { answers, ok, refused, tooMany, timeouts, other, admitted } = run.posts;
    const notArrived = run.errors - (answers - ok);
    steps.push({
      rate,
      pass,
      sentPerSecond: run.requestsPerSecond,
      p50Ms: run.p50Ms,
      p99Ms: run.p99Ms,
      postP99Ms: admitted.p99,
      refused,
      tooMany,
      timeouts,
      other,
      notArrived,
    });
    console.log(
      `    ${served.name} at ${rate}/s: ${pass ? 'pass' : 'fail'} (to the stream p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms; POST p99 ${admitted.p99} ms;` +
        ` ${refused} 503, ${tooMany} 429, ${timeouts} timeouts, ${other} others; ${notArrived} created not on the stream; sent at ${run.requestsPerSecond}/s)`,
    );
    return pass;
  };
  return { capacity: await searchCapacity(step, { start, factor, refineSteps }), steps };
}

/**
 * A `mentionRun` with the CPU each process spent from its first comment to its last notification, per
 * comment; before it, what each spends a second idle, over `idleSeconds` without comments. With
 * `settled(commentIds)`, the CPU is sampled once that resolves (with what it gives as `notifications`):
 * the notifications not on the streams stored too.
 */
async function cpuRun(served, { idleSeconds, settled, ...options }) {
  const [idleFrom, idleOwn, idleStart] = [served.cpuNow(), process.cpuUsage(), performance.now()];
  await pause(idleSeconds * 1000);
  const [before, own] = [served.cpuNow(), process.cpuUsage()];
  const idleCpu = cpuPer((performance.now() - idleStart) / 1000, idleFrom, before, process.cpuUsage(idleOwn));
  const createdIds = [];
  const { posts: _posts, ...run } = await mentionRun(served, { ...options, createdIds });
  const notifications = settled ? await settled(createdIds) : undefined;
  return {
    ...run,
    cpu: cpuPer(run.sent, before, served.cpuNow(), process.cpuUsage(own)),
    idleCpu,
    ...(settled ? { notifications } : {}),
  };
}

/**
 * The system's CPU per comment and per notification at `rate`, for 20 authors each mentioning a third
 * user: on the author's own recipe (one notification: the mention) and on the next author's (two: the
 * mention and `comment_recipe` to its owner, docs/api.md §11.4), one after the other. Each run's CPU is
 * taken once its notifications are all stored (`notificationsOf`).
 */
async function notificationCases(served, { pool, gatewayUrl, rate, seconds, idleSeconds }) {
  const authorHeaders = served.workload.authorHeaders.slice(0, AUTHORS);
  const recipeIds = await recipesOf(gatewayUrl, pool, authorHeaders);
  const urlOf = (recipeId) => `${gatewayUrl}/api/recipes/${recipeId}/comments`;
  const cases = [
    ['one notification (a mention, on the author’s own recipe)', 1, recipeIds.map(urlOf)],
    [
      'two notifications (a mention, on another user’s recipe)',
      2,
      recipeIds.map((_, n) => urlOf(recipeIds[(n + 1) % recipeIds.length])),
    ],
  ];
  const runs = [];
  for (const [name, perComment, postUrls] of cases) {
    const workload = { ...served.workload, authorHeaders, postUrls };
    const settled = (commentIds) => notificationsOf(pool, commentIds, commentIds.length * perComment);
    const { cpu, idleCpu: _idleCpu, ...run } = await cpuRun(served, { rate, seconds, idleSeconds, workload, settled });
    const perNotification = Object.fromEntries(
      Object.entries(cpu).map(([part, ms]) => [part, +((ms * run.sent) / Math.max(run.notifications, 1)).toFixed(2)]),
    );
    runs.push({ case: name, ...run, cpu, perNotification });
  }
  return runs;
}

/**
 * A `mentionRun` at each of `rates` with `tokens.length` more streams open (of users nobody mentions),
 * through `streamUrl`, all closed after (`closeAll`): the chain's latency with a crowd of listeners.
 */
async function crowdedRuns(served, { tokens, streamUrl, closeAll, rates, seconds }) {
  const crowd = await openStreams(streamUrl, tokens);
  try {
    // A second of comments first, as after any change of the system: the crowd's streams have just
    // opened (each with its catch-up read), and the first run would time their settling.
    await mentionRun(served, { rate: rates[0], seconds: 1 });
    const runs = [];
    for (const rate of rates) {
      const { posts: _posts, ...run } = await mentionRun(served, { rate, seconds });
      runs.push({ ...run, rate, streams: crowd.length + served.streams.length });
    }
    return runs;
  } finally {
    await closeAll(crowd);
  }
}

/**
 * Restarts each of `processes` (scripts/system.mjs ServiceProcess) with the environment `envOf` gives it, all at once.
 */
async function restartWith(processes, envOf) {
  await Promise.all(
    processes.map((serviceProcess) => {
      serviceProcess.env = envOf(serviceProcess);
      return serviceProcess.restart();
    }),
  );
}

const perComment = (count, comments) => +(count / comments).toFixed(2);

/**
 * Round trips per mentioned comment by part (of `parts`) and by statement: those of a run of `seconds` at
 * `rate`, less what each part sent in as long idle just before (after a second of comments to fill caches
 * and prepare statements on the fresh connections).
 */
async function roundTrips(served, counter, parts, { rate, seconds }) {
  await mentionRun(served, { rate, seconds: 1 });
  counter.take();
  await pause(seconds * 1000);
  const idle = counter.take();
  const run = await mentionRun(served, { rate, seconds });
  const busy = counter.take();
  const idleShare = busy.seconds / idle.seconds;
  const statements = [];
  const byPart = {};
  const idlePerSecond = {};
  for (const part of parts) {
    const [during, before] = [busy.counts[part] ?? {}, idle.counts[part] ?? {}];
    let sum = 0;
    for (const text of new Set([...Object.keys(during), ...Object.keys(before)])) {
      const net = (during[text] ?? 0) - (before[text] ?? 0) * idleShare;
      sum += net;
      if (Math.abs(net / run.created) >= 0.01)
        statements.push({ part, perComment: perComment(net, run.created), statement: text });
    }
    byPart[part] = perComment(sum, run.created);
    idlePerSecond[part] = +(Object.values(before).reduce((total, n) => total + n, 0) / idle.seconds).toFixed(1);
  }
  statements.sort((a, b) => a.part.localeCompare(b.part) || b.perComment - a.perComment);
  const total = +Object.values(byPart)
    .reduce((all, n) => all + n, 0)
    .toFixed(2);
  return {
    comments: run.created,
    errors: run.errors,
    seconds: +busy.seconds.toFixed(1),
    byPart,
    total,
    idlePerSecond,
    statements,
  };
}

/**
 * The `writepath` part on `system` (seeded: `fixture`'s recipe, the people of seed.mjs), whose database
 * is `database`; tokens from `signToken`; the reference on `ports` (`{ comments, notifications }`).
 * Capacity searches from `start` (the reference's from the system's capacity), steps of `stepSeconds`;
 * CPU at `rate` (else half the lower capacity) for `seconds`; round trips for `countSeconds`; the system
 * again at each of `crowdShares` of its capacity with `crowdStreams` streams open in all.
 */
export async function writePathComparison({
  system,
  pools,
  fixture,
  signToken,
  database,
  amqpUrl,
  ports,
  start,
  stepSeconds,
  factor,
  refineSteps,
  rate: fixedRate,
  seconds,
  countSeconds,
  crowdStreams,
  crowdShares,
}) {
  const cleanUp = async () => {
    await pools.public.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await removeExchangeFamily(amqpUrl, EXCHANGE);
  };
  await cleanUp(); // what an interrupted run left
  await createReferenceTables(pools.public, fixture.recipeId);
  const { rows } = await pools.public.query('SELECT k, id FROM bench_people ORDER BY k LIMIT $1', [
    Math.max(crowdStreams, MENTIONED_USERS + AUTHORS),
  ]);
  const people = rows.map(({ k, id }) => ({ id, username: `bench_user_${k}` }));
  // The crowd: streams of users nobody here mentions, the authors first.
  const crowdTokens = people.slice(MENTIONED_USERS, crowdStreams).map((user) => signToken(user));
  const mentioned = people.slice(0, MENTIONED_USERS);
  const workload = {
    mentioned,
    streamTokens: mentioned.map((user) => signToken(user)),
    authorHeaders: people
      .slice(MENTIONED_USERS)
      .map((user) => ({ authorization: `Bearer ${signToken(user)}`, 'content-type': 'application/json' })),
  };
  const path = `/api/recipes/${fixture.recipeId}/comments`;
  const publicKeyFile = system.process('users').env.JWT_PUBLIC_KEY_FILE;

  const reference = {};
  const startReference = async (databaseUrl) => {
    for (const role of REFERENCE_ROLES) {
      reference[role] = await startProcess('bench/reference/write-path.mjs', ports[role], {
        ROLE: role,
        DATABASE_URL: databaseUrl(role),
        AMQP_URL: amqpUrl,
        EXCHANGE,
        SCHEMA,
        JWT_PUBLIC_KEY_FILE: publicKeyFile,
      });
    }
  };
  const stopReference = async () => {
    for (const role of REFERENCE_ROLES) {
      if (!reference[role]) continue;
      reference[role].stop();
      await exited(reference[role].pid);
      delete reference[role];
    }
  };
  const sides = [
    side('system', {
      postUrl: `${system.urlOf('gateway')}${path}`,
      streamUrl: () => `${system.urlOf('gateway')}${STREAM_PATH}`,
      workload,
      closeAll: (streams) => closeStreams(streams, pools.public),
      cpuNow: () => cpuSample(system, { database }),
    }),
    side('reference', {
      postUrl: `http://127.0.0.1:${ports.comments}${path}`,
      streamUrl: () => `${reference.notifications.url}${STREAM_PATH}`,
      workload,
      closeAll: async (streams) => streams.forEach((stream) => stream.close()),
      cpuNow: () =>
        cpuSample(
          { processes: [] },
          {
            extra: Object.fromEntries(REFERENCE_ROLES.map((role) => [referencePart(role), reference[role].pid])),
            database,
          },
        ),
    }),
  ];
  const [ours, floor] = sides;
  const databaseProcesses = system.processes.filter((p) => DATABASE_SERVICES.includes(p.service));
  const directEnv = new Map(databaseProcesses.map((p) => [p, p.env]));
  let counter;
  const figures = {};
  try {
    await startReference(() => system.databaseUrl);
    for (const served of sides) await served.open();

    figures.capacity = {};
    for (const served of sides) {
      const from = served === floor ? Math.max(figures.capacity.system.capacity, 1) : start;
      figures.capacity[served.name] = await capacityOf(served, { start: from, stepSeconds, factor, refineSteps });
    }
    const lower = Math.min(...sides.map((served) => figures.capacity[served.name].capacity));
    figures.rate = fixedRate ?? Math.max(1, Math.round(lower / 2));
    figures.runs = {};
    for (const served of sides)
      figures.runs[served.name] = await cpuRun(served, { rate: figures.rate, seconds, idleSeconds: countSeconds });
    figures.notificationCases = await notificationCases(ours, {
      pool: pools.public,
      gatewayUrl: system.urlOf('gateway'),
      rate: figures.rate,
      seconds,
      idleSeconds: countSeconds,
    });
    figures.crowded = await crowdedRuns(ours, {
      rates: crowdShares.map((share) => Math.max(1, Math.round(share * figures.capacity.system.capacity))),
      seconds,
      tokens: crowdTokens,
      streamUrl: `${system.urlOf('gateway')}${STREAM_PATH}`,
      closeAll: async (streams) => streams.forEach((stream) => stream.close()),
    });

    counter = await startRoundTripCounter(system.databaseUrl, [
      ...DATABASE_SERVICES,
      ...REFERENCE_ROLES.map(referencePart),
    ]);
    figures.roundTrips = {};
    await ours.close();
    await restartWith(databaseProcesses, (p) => ({ ...p.env, DATABASE_URL: counter.urlOf(p.service) }));
    await ours.open();
    figures.roundTrips.system = await roundTrips(ours, counter, DATABASE_SERVICES, {
      rate: figures.rate,
      seconds: countSeconds,
    });
    await ours.close();
    await restartWith(databaseProcesses, (p) => directEnv.get(p));
    await floor.close();
    await stopReference();
    await startReference((role) => counter.urlOf(referencePart(role)));
    await floor.open();
    figures.roundTrips.reference = await roundTrips(floor, counter, REFERENCE_ROLES.map(referencePart), {
      rate: figures.rate,
      seconds: countSeconds,
    });
  } finally {
    for (const served of sides) await served.close().catch(() => undefined);
    await stopReference();
    // Back on the database directly for the parts after this one.
    await restartWith(
      databaseProcesses.filter((p) => p.env !== directEnv.get(p)),
      (p) => directEnv.get(p),
    );
    await counter?.close();
    await cleanUp();
  }
  return figures;
}
