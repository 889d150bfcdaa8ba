// A seeded fault campaign: the whole system with two instances of each backend service, a workload
// through the gateway, and faults drawn from the seed (servers stopped, connections dropped, cut or
// slowed, instances killed, one of its two hosts cut from the servers or from the other); then everything
// restored, the system left to settle, and its data checked.
import pg from 'pg';
import { services } from '../services.mjs';
import { addressesOf, startSystem } from '../system.mjs';
import { FAULT_KINDS, restoreEverything } from './faults.mjs';
import { HOSTILE_LIMITS, startHostile } from './hostile.mjs';
import { linksBetweenHosts, settingsAcross } from './hosts.mjs';
import { startDeletions } from './deletions.mjs';
import { checkInvariants, runChecks, sampleRetractions } from './invariants.mjs';
import { laneSchedule, LANES, pause, PER_KIND_PER_MINUTE, quotasFor, runLane } from './lanes.mjs';
import { startOverload } from './overload.mjs';
import { guardProcesses } from './processes.mjs';
import { createFaultProxy } from './proxy.mjs';
import { pushedOnce, startPushService } from './push.mjs';
import { random, randomSeed } from './random.mjs';
import { burstSummary, formatResult, hostileSummary, perMinute, workloadSummary } from './report.mjs';
import { serverControl } from './servers.mjs';
import { startSessions } from './sessions.mjs';
import { settle } from './settle.mjs';
import { deleteTopology, dropDatabase } from './topology.mjs';
import { startWorkload } from './workload.mjs';

export const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const LOCAL_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';
export { FAULT_KINDS, formatResult };

const REPLICAS = 2;

const fail = (message) => {
  throw new Error(message);
};

/** Lifts the per-person and per-address limits, which the campaign's few clients would hit. */
const unlimited = {
  RATE_LIMIT_ENABLED: 'false',
  COMMENT_LIMIT_PER_MINUTE: '1000000',
  NOTIFICATION_BUDGET_PER_HOUR: '1000000',
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
};

/** The system fails to start while a server it needs is away, e.g. someone else's test stopped it: once more. */
async function startTwice(start, say) {
  try {
    return await start();
  } catch (error) {
    say(`the system did not start (${error.message}); trying again`);
    await pause(5_000);
    return start();
  }
}

/** The campaign stops and starts servers: only the local ones, or containers it was told of. */
function refuseForeignServers({ databaseUrl, amqpUrl, containers }) {
  const local = (url, localUrl) => new URL(url).host === new URL(localUrl).host;
  if (!containers.postgres && !local(databaseUrl, LOCAL_DATABASE_URL))
    throw new Error(`cannot stop or start PostgreSQL at ${new URL(databaseUrl).host}`);
  if (!containers.rabbitmq && !local(amqpUrl, LOCAL_AMQP_URL))
    throw new Error(`cannot stop or start RabbitMQ at ${new URL(amqpUrl).host}`);
}

/** `{ kind: n }` as "n of each kind", or "n of kind, …" where they differ. */
function minimums(quota, kinds) {
  const counts = new Set(kinds.map((kind) => quota[kind]));
  if (counts.size === 1) return `${[...counts][0]} of each kind`;
  return kinds.map((kind) => `${quota[kind]} ${kind}`).join(', ');
}

/** One proxy to PostgreSQL and one to RabbitMQ per backend instance, keyed `service#instance`. */
async function proxiesFor(instances, databaseUrl, amqpUrl) {
  const proxies = new Map();
  for (const name of instances)
    proxies.set(name, { database: await createFaultProxy(databaseUrl), broker: await createFaultProxy(amqpUrl) });
  return proxies;
}

/**
 * Runs every lane at once until `deadline` (each then goes on until its kinds reach `quota`, for at
 * most a quarter of the time more); resolves once every lane has undone its last fault.
 */
async function injectFaults({ rng, lanes, instances, minutes, ...shared }) {
  const seconds = minutes * 60;
  const lastCall = shared.deadline + (seconds * 1_000) / 4 + 10_000;
  await Promise.allSettled(
    lanes.map((lane) =>
      runLane({
        ...shared,
        lane,
        schedule: laneSchedule(rng.fork(`lane ${lane.name}`), lane, instances),
        seconds,
        lastCall,
      }),
    ),
  );
}

/**
 * Runs a campaign and resolves with its results (see campaign.d.mts). Restores every server and stops
 * every process it started before it resolves or rejects; `signal` cuts the fault phase short.
 */
export async function runCampaign({
  seed = randomSeed(),
  minutes = 10,
  log = console.log,
  name = 'recipes_chaos',
  portOffset = 2000,
  databaseUrl = LOCAL_DATABASE_URL,
  amqpUrl = LOCAL_AMQP_URL,
  containers = {},
  clients = 8,
  perKindPerMinute = PER_KIND_PER_MINUTE,
  settleTimeoutMs = 180_000,
  logs = 'ignore',
  keepDatabase = true,
  // How long each process may take to be ready, at the start and after a kill: more on a busy machine.
  readyWithinMs = 30_000,
  // The lanes to run, by name (lanes.mjs); every one by default.
  lanes: laneNames = LANES.map((lane) => lane.name),
  signal,
} = {}) {
  refuseForeignServers({ databaseUrl, amqpUrl, containers });
  const lanes = laneNames.map((name) => LANES.find((lane) => lane.name === name) ?? fail(`no lane ${name}`));
  const kinds = lanes.flatMap((lane) => lane.kinds);
  const started = Date.now();
  const say = (line) => log(`[chaos +${((Date.now() - started) / 1_000).toFixed(1)}s] ${line}`);
  const rng = random(seed);
  const exchange = `recipes.${name}`;
  const servers = serverControl({ containers });
  const state = { postgresDown: false, rabbitmqDown: false, held: new Set(), restarts: new Set() };
  const instances = services
    .filter((s) => s.name !== 'gateway')
    .flatMap((s) => Array.from({ length: REPLICAS }, (_, i) => `${s.name}#${i}`));
  const quota = quotasFor(minutes, perKindPerMinute);
  const tally = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, { injected: 0, busyMs: 0 }]));
  const errors = [];
  /**
   * Every fault's time, from its injection to its end (lanes.mjs), for the checks that excuse what a fault could cause.
   */
  const timeline = [];
  let proxies = new Map();
  let links;
  let system, db, guard, workload, hostile, overload, sessions, deletions, retractions, push;
  const context = () => ({ system, proxies, links, servers, state, say, signal, push });

  try {
    say(`seed ${seed}: starting the system, ${REPLICAS} instances of each backend service`);
    await deleteTopology(amqpUrl, servers, exchange);
    proxies = await proxiesFor(instances, databaseUrl, amqpUrl);
    links = await linksBetweenHosts(
      addressesOf(portOffset),
      services.filter((s) => s.name !== 'gateway'),
    );
    push = await startPushService();
    system = await startTwice(
      () =>
        startSystem({
          name,
          portOffset,
          replicas: REPLICAS,
          readyWithinMs,
          databaseUrl,
          amqpUrl,
          logs,
          // Eleven processes share PostgreSQL's connections with whatever else runs on the machine. The
          // failed-login limits stay, low: only the hostile user logs in.
          env: { ...unlimited, ...HOSTILE_LIMITS, ...push.env, DATABASE_POOL_MAX: '4' },
          envFor: (service, instance, env) => {
            const proxy = proxies.get(`${service}#${instance}`);
            return {
              ...settingsAcross(service, instance, env, links),
              ...(proxy
                ? { DATABASE_URL: proxy.database.url(env.DATABASE_URL), AMQP_URL: proxy.broker.url(env.AMQP_URL) }
                : {}),
            };
          },
        }),
      say,
    );
    db = new pg.Pool({ connectionString: system.databaseUrl, max: 3 });
    db.on('error', () => undefined); // a stopped server drops idle connections; the pool makes new ones
    guard = guardProcesses({ system, state, signal, log: say });
    retractions = sampleRetractions(db);
    workload = await startWorkload({ apiUrl: `${system.urlOf('gateway')}/api`, rng: rng.fork('workload'), clients });
    await push.subscribe(`${system.urlOf('gateway')}/api`, workload.world.users);
    hostile = await startHostile({
      apiUrl: `${system.urlOf('gateway')}/api`,
      system,
      world: workload.world,
      rng: rng.fork('hostile'),
    });
    overload = startOverload({
      apiUrl: `${system.urlOf('gateway')}/api`,
      world: workload.world,
      rng: rng.fork('overload'),
    });
    sessions = await startSessions({ apiUrl: `${system.urlOf('gateway')}/api`, rng: rng.fork('sessions') });
    deletions = startDeletions({
      apiUrl: `${system.urlOf('gateway')}/api`,
      world: workload.world,
      rng: rng.fork('deletions'),
    });
    const registered = `${workload.world.users.length} users registered, ${push.subscriptions.length} push subscriptions`;
    const laneList = `lanes ${laneNames.join(', ')}`;
    say(
      `${registered}; ${clients} clients, a hostile user, users logging in and out, users leaving and bursts above ` +
        `capacity at work; faults for ${minutes} min (${laneList}), at least ${minimums(quota, kinds)}`,
    );

    const faultsStarted = Date.now();
    const deadline = faultsStarted + minutes * 60_000;
    await injectFaults({
      rng: rng.fork('faults'),
      lanes,
      instances,
      quota,
      minutes,
      deadline,
      signal,
      context: context(),
      say,
      tally,
      errors,
      timeline,
    });
    const faultsEnded = Date.now();
    say(
      `stopping the workload after ${workload.requests.length} requests, the hostile user after ${hostile.requests.length}, ` +
        `the bursts after ${overload.requests.length}, the sessions after ${sessions.requests.length}, ` +
        `the leaving users after ${deletions.requests.length} (${deletions.leavers.length} users)`,
    );
    await Promise.all([workload.stop(), hostile.stop(), overload.stop(), sessions.stop(), deletions.stop()]);
    await guard.stop();
    if (signal?.aborted) throw new Error('the campaign was interrupted');
    errors.push(...(await restoreEverything(context())));

    say('everything restored; waiting for the system to settle');
    const settled = await settle({ system, db, servers, exchange, timeoutMs: settleTimeoutMs, signal, log: say });
    if (signal?.aborted) throw new Error('the campaign was interrupted');
    say(
      settled.settled ? `settled in ${(settled.ms / 1_000).toFixed(1)} s; checking` : 'did not settle; checking anyway',
    );
    const faults = Object.fromEntries(kinds.map((kind) => [kind, tally[kind].injected]));
    const retractedSeen = await retractions.stop();
    const rows = [
      ...runChecks({ settled, requests: workload.requests, exits: guard.exits, faults, quota, errors }),
      ...(await pushedOnce({ db, push, timeline })),
      ...(await checkInvariants({ db, amqpUrl, exchange, world: workload.world, retractedSeen })),
      ...(await hostile.checks(db)),
      ...(await overload.checks(db)),
      ...sessions.checks(timeline),
      ...(await deletions.checks({ db, system })),
    ];
    return {
      seed,
      minutes,
      seconds: Math.round((Date.now() - started) / 1_000),
      database: keepDatabase ? name : undefined,
      passed: rows.every((r) => r.result === 'PASS'),
      rows,
      faultSeconds: Math.round((faultsEnded - faultsStarted) / 1_000),
      quota: Object.fromEntries(kinds.map((kind) => [kind, quota[kind]])),
      faults,
      // Mean seconds spent injecting and undoing one fault of each kind (its own duration aside).
      faultCosts: Object.fromEntries(
        kinds.map((kind) => [kind, tally[kind].injected ? tally[kind].busyMs / tally[kind].injected / 1_000 : 0]),
      ),
      faultErrors: errors,
      requests: workload.requests.length,
      workload: workloadSummary(workload.requests),
      hostile: hostileSummary(hostile.requests),
      bursts: burstSummary(overload.requests),
      perMinute: perMinute(workload.requests, faultsStarted),
    };
  } finally {
    await workload?.stop();
    await hostile?.stop();
    await overload?.stop();
    await sessions?.stop();
    await deletions?.stop();
    await guard?.stop();
    await retractions?.stop();
    const late = await restoreEverything(context(), { processes: false });
    if (late.length > 0) say(`restoring at the end: ${late.join('; ')}`);
    await db?.end();
    await system?.stop();
    if (!keepDatabase)
      await dropDatabase(databaseUrl, name).catch((error) => say(`could not drop the database: ${error.message}`));
    await Promise.all([...proxies.values()].flatMap((p) => [p.database.close(), p.broker.close()]));
    await Promise.all((links?.all() ?? []).map((link) => link.close()));
    await push?.close();
    await deleteTopology(amqpUrl, servers, exchange).catch((error) =>
      say(`could not delete the system's queues: ${error.message}`),
    );
  }
}
