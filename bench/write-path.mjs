// The write path of a mentioned comment against its floors, the bench's `writepath` part: the system
// (through the gateway) and two floors in plain Node (write-path-floors.mjs), each with its own tables in
// a schema of its own, its own exchange and queues, under the same open loop: comment i written by seeded
// user i % 20 and mentioning another, i % 20 of 20 more, whose streams are open. (By one author, the
// system's comments would take turns on that author's notification budget, a row each comment's
// transaction locks until it commits.) The plain floor (`reference`) has the system's guarantees and
// nothing more; the architecture's (`architecture`) adds what the system's design requires: a proxy in
// front, `comment.created` and its comment count, the owner's notification and streams woken on every
// instance. For each (write-path-runs.mjs):
// - capacity: the highest rate at which every POST is answered 201, every notification reaches its
//   stream once, and the p99 from a POST's sending to its `event: notification` is under 250 ms
//   (overload.mjs's search; each step waits for its stragglers, so the next starts without a backlog),
//   and what ended the search (latency, refusals or a lost notification);
// - CPU ms per mentioned comment by process (cpu.mjs), all at the same rates: the system and the
//   architecture's floor at `CPU_SHARES` of the lowest capacity, the plain floor at half of it; and, just
//   before each, what each process spends a second idle;
// - the system alone at half the lowest capacity, 20 authors each on their own recipe (one notification:
//   the mention) and each on another's (two: the mention and the owner's `comment_recipe`): CPU ms per
//   comment and per notification, each run's taken once all its notifications are stored;
// - the system and the architecture's floor at shares of the system's capacity with a crowd of streams open;
// - round trips to PostgreSQL per mentioned comment, by process and statement (round-trips.mjs): the
//   system's services restarted with their DATABASE_URL through the counting proxy, and back after; the
//   floors likewise. What each process sends while idle, measured just before for as long, is taken off.
import { notificationsOf, recipesOf } from './authors.mjs';
import { cpuSample } from './cpu.mjs';
import { startRoundTripCounter } from './round-trips.mjs';
import { closeStreams, STREAM_PATH } from './streams.mjs';
import { architectureWork, FLOORS, floorOf, resetFloors } from './write-path-floors.mjs';
import { capacityOf, cpuRun, crowdedRuns, roundTrips, side } from './write-path-runs.mjs';

const MENTIONED_USERS = 20;
const AUTHORS = 20;
/** The system's processes with a database pool: those the round-trip count restarts through its proxy. */
const DATABASE_SERVICES = ['users', 'content', 'comments', 'collections', 'notifications'];
/** The shares of the lowest capacity at which the system's and the architecture's CPU per comment are taken. */
export const CPU_SHARES = [0.25, 0.5, 0.9];

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

/**
 * The `writepath` part on `system` (seeded: `fixture`'s recipe, the people of seed.mjs), whose database
 * is `database`; tokens from `signToken`; each floor on its `ports` (`{ reference: { comments, notifications },
 * architecture: { comments, notifications, counts, proxy } }`). Capacity searches from `start` (the floors'
 * from the system's capacity), steps of `stepSeconds`; CPU at `CPU_SHARES` of the lowest capacity (of twice
 * `rate`, when given) for `seconds`; round trips for `countSeconds`; the system and the architecture's floor
 * again at each of `crowdShares` of the system's capacity with `crowdStreams` streams open in all.
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
  await resetFloors(pools.public, amqpUrl, fixture.recipeId);
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
  const floors = Object.keys(FLOORS).map((name) =>
    floorOf(name, { pool: pools.public, database, ports: ports[name], amqpUrl, publicKeyFile, workload, path }),
  );
  const ours = side('system', {
    postUrl: `${system.urlOf('gateway')}${path}`,
    streamUrl: () => `${system.urlOf('gateway')}${STREAM_PATH}`,
    workload,
    closeAll: (streams) => closeStreams(streams, pools.public),
    cpuNow: () => cpuSample(system, { database }),
  });
  const architecture = floors.find((floor) => floor.name === 'architecture').side;
  const sides = [ours, ...floors.map((floor) => floor.side)];
  const databaseProcesses = system.processes.filter((p) => DATABASE_SERVICES.includes(p.service));
  const directEnv = new Map(databaseProcesses.map((p) => [p, p.env]));
  let counter;
  const figures = {};
  try {
    for (const floor of floors) await floor.start(() => system.databaseUrl);
    for (const served of sides) await served.open();

    figures.capacity = {};
    for (const served of sides) {
      const from = served === ours ? start : Math.max(figures.capacity.system.capacity, 1);
      figures.capacity[served.name] = await capacityOf(served, { start: from, stepSeconds, factor, refineSteps });
    }
    // The same rates for all: shares of the lowest capacity (the system's, as it has been).
    const base = fixedRate ? 2 * fixedRate : Math.min(...sides.map((served) => figures.capacity[served.name].capacity));
    const rateAt = (share) => Math.max(1, Math.round(share * base));
    figures.rate = rateAt(0.5);
    figures.shares = [];
    for (const share of CPU_SHARES) {
      const runs = {};
      for (const served of share === 0.5 ? sides : [ours, architecture])
        runs[served.name] = await cpuRun(served, { rate: rateAt(share), seconds, idleSeconds: countSeconds });
      figures.shares.push({ share, rate: rateAt(share), runs });
    }
    figures.runs = figures.shares.find(({ share }) => share === 0.5).runs;
    figures.notificationCases = await notificationCases(ours, {
      pool: pools.public,
      gatewayUrl: system.urlOf('gateway'),
      rate: figures.rate,
      seconds,
      idleSeconds: countSeconds,
    });
    const crowdRates = crowdShares.map((share) => Math.max(1, Math.round(share * figures.capacity.system.capacity)));
    figures.crowded = {};
    for (const served of [ours, architecture])
      figures.crowded[served.name] = await crowdedRuns(served, { tokens: crowdTokens, rates: crowdRates, seconds });

    counter = await startRoundTripCounter(system.databaseUrl, [
      ...DATABASE_SERVICES,
      ...floors.flatMap((floor) => floor.parts),
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
    for (const floor of floors) {
      await floor.side.close();
      await floor.stop();
      await floor.start((part) => counter.urlOf(part));
      await floor.side.open();
      figures.roundTrips[floor.name] = await roundTrips(floor.side, counter, floor.parts, {
        rate: figures.rate,
        seconds: countSeconds,
      });
    }
    figures.architectureWork = await architectureWork(pools.public);
  } finally {
    for (const served of sides) await served.close().catch(() => undefined);
    for (const floor of floors) await floor.stop();
    // Back on the database directly for the parts after this one.
    await restartWith(
      databaseProcesses.filter((p) => p.env !== directEnv.get(p)),
      (p) => directEnv.get(p),
    );
    await counter?.close();
    await resetFloors(pools.public, amqpUrl);
  }
  return figures;
}
