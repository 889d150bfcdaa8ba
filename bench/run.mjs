// `npm run bench`: starts the system on spare ports (offset 1100) on a database of its own and seeds it.
// First, each public read, copied in bench/reference/, against that same work in plain Fastify
// (bench/reference-phase.mjs); a mixed read workload through the gateway at a fixed rate
// (bench/open-loop.mjs); the CPU of `npm start`'s supervisor, on a system of its own
// (bench/supervisor.mjs). Then every public GET of the gateway's OpenAPI document and the comment POST,
// through the gateway and directly against the owning service, beside a bare Fastify "hello"; the listings
// at two table sizes, the CPU of a login, mention-to-notification latency, the outbox relay's pace and the
// processes' memory; last the notification stream (bench/streams.mjs: the CPU of a 304 against a 200 on
// the unread count, mention to `event: notification` with many streams open and again on a quiet system,
// the memory of idle streams); and the write path of a mentioned comment against the same guarantees in
// plain Node (bench/write-path.mjs).
// BENCH_ONLY runs some of these alone (see below). Prints one table, the targets with PASS or MISS, and
// the time of each phase, and writes them as JSON.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dropDatabase, removeExchangeFamily } from '@recipes/testing/cleanup';
import { EXPORT_PATH } from './export.mjs';
import { STREAM_PATH } from './streams.mjs';
import { getScenarios, publicGets } from './scenarios.mjs';
import { openPools, seedFixture } from './seed.mjs';
import { startSystem } from '../scripts/system.mjs';
import { AMQP_URL, NAME, PORT_OFFSET } from './parts/context.mjs';
import { referencePart } from './parts/reference.mjs';
import { openLoopPart } from './parts/open-loop.mjs';
import { burstsPart } from './parts/bursts.mjs';
import { wakeupsPart } from './parts/wakeups.mjs';
import { rollingPart } from './parts/rolling.mjs';
import { overloadPart } from './parts/overload.mjs';
import { supervisorPart } from './parts/supervisor.mjs';
import { tracingPart } from './parts/tracing.mjs';
import { cursorPart } from './parts/cursor.mjs';
import { writePathPart } from './parts/writepath.mjs';
import { printWritePath } from './write-path-tables.mjs';
import { pushPart } from './parts/push.mjs';
import { exportPart } from './parts/export.mjs';
import { vapidPair } from '../scripts/keys.mjs';
import { wholeBenchPart } from './parts/whole.mjs';
import { streamsPart } from './parts/streams.mjs';
import { FRONT_DEFAULTS, HAPROXY } from '../scripts/front.mjs';

const setting = (name, fallback) => Number(process.env[name] ?? fallback);
/** BENCH_OVERLOAD_WORKLOADS: a comma-separated list of the overload part's workloads to run, of these. */
const OVERLOAD_WORKLOADS = ['mentions', 'reads'];
const config = {
  durationSeconds: setting('BENCH_DURATION_SECONDS', 5),
  connections: setting('BENCH_CONNECTIONS', 100),
  scaleSeconds: setting('BENCH_SCALE_SECONDS', 2),
  smallRows: setting('BENCH_SMALL_ROWS', 1_000),
  largeRows: setting('BENCH_LARGE_ROWS', 1_000_000),
  mentionRate: setting('BENCH_MENTION_RATE', 200),
  mentionSeconds: setting('BENCH_MENTION_SECONDS', 30),
  outboxEvents: setting('BENCH_OUTBOX_EVENTS', 100_000),
  soakSeconds: setting('BENCH_SOAK_SECONDS', 300),
  quietSeconds: setting('BENCH_QUIET_SECONDS', 5),
  logins: setting('BENCH_LOGINS', 200),
  streams: setting('BENCH_STREAMS', 1_000),
  streamsMentioned: setting('BENCH_STREAMS_MENTIONED', 100),
  wakeupMentions: setting('BENCH_WAKEUP_MENTIONS', 10_000),
  wakeupRate: setting('BENCH_WAKEUP_RATE', 20),
  idleStreams: setting('BENCH_IDLE_STREAMS', 10_000),
  etagRate: setting('BENCH_ETAG_RATE', 1_000),
  etagConnections: setting('BENCH_ETAG_CONNECTIONS', 10),
  quietMentionRate: setting('BENCH_QUIET_MENTION_RATE', 5),
  quietMentionSeconds: setting('BENCH_QUIET_MENTION_SECONDS', 10),
  referenceSeconds: setting('BENCH_REFERENCE_SECONDS', 3),
  openLoopRate: setting('BENCH_OPEN_LOOP_RATE', 400),
  openLoopSeconds: setting('BENCH_OPEN_LOOP_SECONDS', 30),
  overloadSeconds: setting('BENCH_OVERLOAD_SECONDS', 30),
  overloadRecoverySeconds: setting('BENCH_OVERLOAD_RECOVERY_SECONDS', 15),
  capacityStepSeconds: setting('BENCH_CAPACITY_STEP_SECONDS', 5),
  capacityFactor: setting('BENCH_CAPACITY_FACTOR', 1.5),
  capacityRefineSteps: setting('BENCH_CAPACITY_REFINE_STEPS', 3),
  // 1: the overload workloads through HAProxy in front of the gateway too (scripts/front.mjs);
  // 1 by default where it is installed, else 0.
  overloadFront: setting('BENCH_OVERLOAD_FRONT', existsSync(HAPROXY) ? 1 : 0),
  overloadWorkloads: process.env.BENCH_OVERLOAD_WORKLOADS?.split(',') ?? OVERLOAD_WORKLOADS,
  // HAProxy's requests in flight to the gateway, how long the next may wait for one, and how many may wait.
  haproxy: {
    maxconn: setting('BENCH_HAPROXY_MAXCONN', FRONT_DEFAULTS.maxconn),
    queueMs: setting('BENCH_HAPROXY_QUEUE_MS', FRONT_DEFAULTS.queueMs),
    queueLimit: setting('BENCH_HAPROXY_QUEUE_LIMIT', FRONT_DEFAULTS.queueLimit),
  },
  cursorRows: setting('BENCH_CURSOR_ROWS', 1_000_000),
  cursorSeconds: setting('BENCH_CURSOR_SECONDS', 5),
  writePathStart: setting('BENCH_WRITEPATH_START', 20),
  // 0: half the lowest capacity (the system’s and its floors’), so that none is saturated.
  writePathRate: setting('BENCH_WRITEPATH_RATE', 0),
  writePathSeconds: setting('BENCH_WRITEPATH_SECONDS', 10),
  writePathCountSeconds: setting('BENCH_WRITEPATH_COUNT_SECONDS', 5),
  pushRate: setting('BENCH_PUSH_RATE', 50),
  pushSeconds: setting('BENCH_PUSH_SECONDS', 30),
  exportComments: setting('BENCH_EXPORT_COMMENTS', 10_000),
};
/**
 * BENCH_ONLY: a comma-separated list of the parts to run alone, after the seed: `reference` (the same-work
 * comparison), `open-loop`, `bursts` (50, 100 and 200 requests at once on an idle system), `wakeups`
 * (BENCH_WAKEUP_MENTIONS
 * mentions at BENCH_WAKEUP_RATE, each timed to its stream: no wake-up may wait for a poll), `rolling` (every
 * instance of a two-instance system restarted in turn under load, bench/rolling.mjs), `overload`, `supervisor`,
 * `tracing`, `streams`, `cursor` (page 1 and page 1,000 of a
 * deep inbox, by cursor and by page number), `writepath` (a mentioned comment's CPU, round trips and capacity against
 * bench/reference/write-path.mjs, and per notification with one and two a comment), `push` (BENCH_PUSH_RATE
 * mentioned comments a second for BENCH_PUSH_SECONDS, without push subscriptions and with one per recipient at the
 * local push service: pushes a second, POST → push received, the extra CPU), `export` (GET /api/users/me/export of a
 * user with a tenth of BENCH_EXPORT_COMMENTS comments, then of one with all: its time and the users service's peak RSS). The rest (scale, ceiling, every GET,
 * mentions, memory,
 * outbox) runs only in the whole bench.
 */
const PARTS = [
  'reference',
  'open-loop',
  'bursts',
  'wakeups',
  'rolling',
  'overload',
  'supervisor',
  'tracing',
  'streams',
  'cursor',
  'writepath',
  'push',
  'export',
];
const BENCH_ONLY = process.env.BENCH_ONLY?.split(',');
const unknownParts = BENCH_ONLY?.filter((part) => !PARTS.includes(part)) ?? [];
if (unknownParts.length > 0)
  throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY}: the parts that run alone are ${PARTS.join(', ')}`);
const runs = (part) => BENCH_ONLY === undefined || BENCH_ONLY.includes(part);
const unknownWorkloads = config.overloadWorkloads.filter((workload) => !OVERLOAD_WORKLOADS.includes(workload));
if (unknownWorkloads.length > 0)
  throw new Error(
    `BENCH_OVERLOAD_WORKLOADS=${process.env.BENCH_OVERLOAD_WORKLOADS}: the workloads are ${OVERLOAD_WORKLOADS.join(', ')}`,
  );
/**
 * BENCH_READS: a comma-separated list of words; the `reference` part then measures only the reads whose name holds one
 * (`groups`, `comments`).
 */
const BENCH_READS = process.env.BENCH_READS?.split(',');
function chosenReads(scenarios) {
  if (BENCH_READS === undefined) return scenarios;
  const chosen = scenarios.filter((s) => BENCH_READS.some((word) => s.name.includes(word)));
  if (chosen.length === 0)
    throw new Error(
      `BENCH_READS=${process.env.BENCH_READS} names none of the reads: ${scenarios.map((s) => s.name).join(', ')}`,
    );
  return chosen;
}

/**
 * The parts in the order they run, each in bench/parts/: `whole` is what runs only when BENCH_ONLY is unset
 * (after the write path), and the notification stream comes last, after the memory soak.
 */
const IN_ORDER = Object.entries({
  reference: referencePart,
  'open-loop': openLoopPart,
  bursts: burstsPart,
  wakeups: wakeupsPart,
  rolling: rollingPart,
  overload: overloadPart,
  supervisor: supervisorPart,
  tracing: tracingPart,
  cursor: cursorPart,
  writepath: writePathPart,
  push: pushPart,
  export: exportPart,
  whole: wholeBenchPart,
  streams: streamsPart,
});

mkdirSync('bench/results', { recursive: true });
const phases = [];
async function phase(name, work) {
  const start = performance.now();
  console.log(`… ${name}`);
  try {
    return await work();
  } finally {
    const seconds = +((performance.now() - start) / 1000).toFixed(1);
    phases.push({ phase: name, seconds });
    console.log(`  ${name}: ${seconds} s`);
  }
}

const rows = [];
const targets = [];
const target = (name, figure, pass) => targets.push({ target: name, figure, result: pass ? 'PASS' : 'MISS' });
const benchStart = performance.now();

// Its exchange and queues, and its database, are the bench's alone: removed before (what an interrupted run
// left would feed this one) and after.
const removeTopology = () => removeExchangeFamily(AMQP_URL, `recipes.${NAME}`);
await removeTopology();
const system = await phase('start the system', () =>
  startSystem({
    name: NAME,
    portOffset: PORT_OFFSET,
    amqpUrl: AMQP_URL,
    inspect: true,
    logs: process.env.BENCH_LOGS ?? 'ignore',
    // Tokens from the seed are used for the whole run, which outlasts the default 15-minute token.
    env: {
      RATE_LIMIT_ENABLED: 'false',
      REGISTER_LIMIT_PER_ADDRESS: '1000000',
      LOGIN_LIMIT_PER_ADDRESS: '1000000',
      COMMENT_LIMIT_PER_MINUTE: '100000000',
      NOTIFICATION_BUDGET_PER_HOUR: '100000000',
      TOKEN_TTL_SECONDS: String(24 * 3600),
      // Web Push on, to the local push service of the `push` part (bench/push.mjs).
      ...vapidPair(),
      PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true',
    },
  }),
);
const { urlOf } = system;
const pools = openPools(system.databaseUrl);
/** What the parts measure, under the results file's keys; each part sets its own as soon as it has them. */
const saved = { overload: [], idleStreams: [] };
let failure;
try {
  const fixture = await phase('seed the users and the viewer’s rows', () => seedFixture(system, pools));
  // The notification stream never ends, so autocannon cannot time it: it has phases of its own
  // (bench/parts/streams.mjs). The data export is allowed 3 times an hour: one request, in its own part
  // (bench/parts/export.mjs).
  const scenarios = getScenarios(
    (await publicGets(urlOf('gateway'))).filter((op) => ![STREAM_PATH, EXPORT_PATH].includes(op.template)),
    fixture,
  );
  const context = { system, pools, fixture, scenarios, config, phase, rows, target, targets, saved, chosenReads };
  for (const [part, run] of IN_ORDER) {
    if (part === 'whole' ? BENCH_ONLY === undefined : runs(part)) await run(context);
  }
} catch (error) {
  // What was measured before the failure is still printed and written; the run then fails.
  failure = error;
} finally {
  await pools.end();
  await system.stop();
  await removeTopology();
  await dropDatabase(new URL('/postgres', system.databaseUrl).toString(), NAME);
}

const {
  memory,
  tableRows,
  cpuPerMention,
  cpuPerLogin,
  notModifiedCpu,
  cpuPerStreamedMention,
  reference,
  supervisorCpu,
  tracingFigures,
  cursorFigures,
  writePath,
  bursts,
  burstsViaFront,
  wakeups,
  rolling,
  overload,
  idleStreams,
} = saved;
const elapsedSeconds = +((performance.now() - benchStart) / 1000).toFixed(0);
console.log(
  `\n${config.durationSeconds} s per measurement, ${config.connections} connections, ${new Date().toISOString()}\n`,
);
console.table(rows);
console.log('\nTargets');
console.table(targets);
if (memory) {
  console.log(
    `Memory: RSS of each process from /proc/<pid>/status, first after a warm-up pass over every GET and ${config.quietSeconds} s of quiet,` +
      ` again after the ${memory?.soakSeconds} s of load that followed (every ` +
      `measurement, the mentions, then more GETs) and ${config.quietSeconds} s of quiet;` +
      ' each time as the process left it and after a full GC (through its inspector); growth is the difference after GC.' +
      ' The outbox phase restarts collections, so it comes after.',
  );
}
if (cpuPerMention) {
  console.log(
    `\nCPU ms per mentioned comment, by part of the system (${availableParallelism()} cores: ${availableParallelism() * 1000} ms of CPU a second)`,
  );
  console.table(cpuPerMention);
}
if (cpuPerLogin) {
  console.log(
    `\nCPU ms per login (password hashing is in users#0), by part of the system, over ${config.logins} logins one at a time`,
  );
  console.table(cpuPerLogin);
}
if (cpuPerStreamedMention) {
  console.log(
    `\nCPU ms per mentioned comment with ${config.streams} streams open (from its POST to its event on the stream), by part of the system` +
      ' (PostgreSQL: the backends of the bench’s database and the server’s own processes)',
  );
  console.table(cpuPerStreamedMention);
}
if (notModifiedCpu) {
  console.log(
    `\nCPU ms per GET /api/notifications/unread-count and /api/notifications at ${config.etagRate} ` +
      `req/s, by part of the system: 200 without If-None-Match, 304 with the current ETag` +
      ' (the target compares notifications#0 + postgres, + gateway#0 through it; ' +
      'PostgreSQL: the backends of the bench’s database and the server’s own processes)',
  );
  console.table(notModifiedCpu);
}
if (reference) {
  for (const [name, byVia] of Object.entries(reference.cpu)) {
    console.log(
      `\nCPU ms per request of ${name} at ${config.connections} connections, by process, for each way of serving it` +
        ' (PostgreSQL and RabbitMQ: all their processes on this machine; no log supervisor here: the bench starts the services itself, their logs discarded)',
    );
    console.table(byVia);
  }
}
if (writePath) printWritePath(writePath);
if (saved.push) {
  console.log(
    `\nPush: CPU ms per mentioned comment at ${saved.push.rate}/s, by process, without push ` +
      `subscriptions and with one per recipient (the local push service is in the load generator)`,
  );
  console.table({ 'no subscription': saved.push.none.cpu, 'one per recipient': saved.push.withPush.cpu });
}
if (tracingFigures) {
  console.log(
    '\nTracing off and on (every span sampled and exported over OTLP http/protobuf), one request at a time, latency in ms',
  );
  console.table(tracingFigures);
}
if (supervisorCpu) {
  console.log(
    `\nCPU ms per GET /api/users/{id} through the gateway of the system npm start ` +
      `runs (scripts/start.mjs), by process; the services write their own lines`,
  );
  console.table(supervisorCpu.cpu);
}
if (idleStreams.length > 0) {
  console.log(
    'Idle streams: RSS as memory.mjs reads it (after a full GC; as left beside), just ' +
      'before they opened and once all were open (each had its first unread_count);' +
      ' one user a stream, with tokens signed by the bench. Through the gateway each stream is a socket there (its ' +
      'client’s; they share one HTTP/2 connection upstream): at most open-file limit − those open − 100 are opened.',
  );
}
console.log('\nPhases');
console.table([...phases, { phase: 'whole bench', seconds: elapsedSeconds }]);
const file = `bench/results/${new Date().toISOString().replaceAll(':', '-')}.json`;
writeFileSync(
  file,
  JSON.stringify(
    {
      failure: failure?.stack,
      config,
      only: BENCH_ONLY,
      tableRows,
      bursts,
      burstsViaFront,
      wakeups,
      rolling,
      tracingFigures,
      cursorFigures,
      writePath,
      push: saved.push,
      export: saved.export,
      memory,
      cpuPerMention,
      cpuPerLogin,
      notModifiedCpu,
      cpuPerStreamedMention,
      idleStreams,
      reference,
      supervisorCpu,
      overload,
      rows,
      targets,
      phases,
      elapsedSeconds,
    },
    null,
    2,
  ),
);
console.log(`written to ${file}`);
if (failure) {
  console.error(failure);
  process.exitCode = 1;
}
