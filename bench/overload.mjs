// Overload (docs/architecture.md §10): a workload's capacity through the gateway, measured on
// the machine it runs on (the highest open-loop rate whose p99 stays under 250 ms with every answer 2xx),
// then open loop at multiples of it. Past capacity the gateway should refuse the excess at once with 503
// and keep serving the rest about as fast as unloaded; once the load drops, latency should come back
// within seconds. For the mentioned-comment POST, every 201 must also have become one notification.
import { Agent } from 'node:http';
import { cpuPer, cpuSample } from './cpu.mjs';
import { schedule, tally } from './open-loop.mjs';

/** A capacity step passes with every answer 2xx and a p99 under this. */
export const CAPACITY_P99_MS = 250;
/** Recovery: the p99 of the requests sent from this long after the load dropped. */
export const RECOVERY_AFTER_SECONDS = 5;
const MENTIONED_USERS = 20;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The two workloads: `next(i)` gives request i. `mentions` posts comments on the viewer's recipe, comment i
 * mentioning seeded person i % 20; `reads` takes every public GET in turn, as the open-loop part does.
 * `nextVia(base)` gives the same requests to a front of the gateway at `base` (scripts/front.mjs),
 * `nextViaFloor(floorUrl)` to the admitting proxy, which routes by service itself.
 */
export async function overloadWorkloads(system, pools, fixture, scenarios) {
  const { urlOf } = system;
  const { metricsUrl } = system.process('gateway');
  const { rows: people } = await pools.public.query('SELECT k, id FROM bench_people ORDER BY k LIMIT $1', [
    MENTIONED_USERS,
  ]);
  const path = `/api/recipes/${fixture.recipeId}/comments`;
  const mention = (i) => JSON.stringify({ content: `Overload ${i} for @bench_user_${people[i % people.length].k}` });
  const headers = { authorization: `Bearer ${fixture.viewer.token}`, 'content-type': 'application/json' };
  const mentionsVia = (base) => (i) => ({
    method: 'POST',
    url: `${base}${path}`,
    headers,
    keepBody: true,
    body: mention(i),
  });
  const readsVia = (base) => {
    const reads = scenarios.map((s) => ({ url: `${base}${s.path}`, headers: s.headers }));
    return (i) => reads[i % reads.length];
  };
  return [
    {
      name: `POST /api/recipes/{id}/comments, each mentioning one of ${people.length} users`,
      short: 'mentions',
      metricsUrl,
      start: 20,
      next: mentionsVia(urlOf('gateway')),
      nextVia: mentionsVia,
      // The same request through the admitting proxy (bench/reference/admitting-proxy.mjs).
      nextViaFloor: (floorUrl) => (i) => ({
        method: 'POST',
        url: `${floorUrl}/comments${path}`,
        headers,
        keepBody: true,
        body: mention(i),
      }),
      recipients: people.map((p) => p.id),
    },
    {
      name: `every GET in turn (${scenarios.length})`,
      short: 'reads',
      metricsUrl,
      start: 100,
      next: readsVia(urlOf('gateway')),
      nextVia: readsVia,
      nextViaFloor: (floorUrl) => (i) => {
        const s = scenarios[i % scenarios.length];
        return { url: `${floorUrl}/${s.service}${s.path}`, headers: s.headers };
      },
    },
  ];
}

/**
 * The comments a set of answers created (201), and whether each became exactly one notification of a
 * mentioned user: read from the database until all are there or `timeoutMs` has passed since the last
 * one arrived (the event side's backlog drains meanwhile, so the next step starts on a quiet system).
 */
async function notifiedOnce(pools, recipients, answers, timeoutMs = 60_000) {
  const commentIds = answers.filter((a) => a.status === 201).map((a) => JSON.parse(a.body).comment.id);
  const start = performance.now();
  let counts = new Map();
  for (let lastProgress = performance.now(); performance.now() - lastProgress < timeoutMs; await pause(200)) {
    const { rows } = await pools.notifications.query(
      `SELECT comment_id, count(*)::int AS n FROM notifications
        WHERE comment_id = ANY($1::uuid[]) AND recipient_id = ANY($2::uuid[]) AND type LIKE 'mention\\_%' GROUP BY comment_id`,
      [commentIds, recipients],
    );
    if (rows.length > counts.size) lastProgress = performance.now();
    counts = new Map(rows.map((r) => [r.comment_id, r.n]));
    if (counts.size === commentIds.length) break;
  }
  return {
    created: commentIds.length,
    missing: commentIds.length - counts.size,
    doubled: [...counts.values()].filter((n) => n > 1).length,
    drainSeconds: +((performance.now() - start) / 1000).toFixed(1),
  };
}

/**
 * Samples the gateway's admission gauges (recipes_admission_limit and _inflight, by service and class)
 * twice a second until the returned stop, which gives each lane's lowest and highest limit and highest
 * in flight, e.g. `comments write: limit 16–40, in flight ≤ 40`: where the limits stood while it ran; and
 * how many requests the gateway shed before routing them meanwhile (recipes_gateway_shed_total).
 */
function sampleAdmission(metricsUrl) {
  const lanes = new Map();
  const shed = { first: undefined, last: 0 };
  const read = async () => {
    const text = await fetch(`${metricsUrl}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    const shedNow = Number(/^recipes_gateway_shed_total (\S+)$/m.exec(text)?.[1] ?? 0);
    shed.first ??= shedNow;
    shed.last = shedNow;
    for (const [, gauge, service, requestClass, value] of text.matchAll(
      /^recipes_admission_(limit|inflight)\{service="([^"]+)",class="([^"]+)"\} (\S+)$/gm,
    )) {
      const key = `${service} ${requestClass}`;
      const lane = lanes.get(key) ?? { low: Infinity, high: 0, inflight: 0 };
      if (gauge === 'limit') [lane.low, lane.high] = [Math.min(lane.low, +value), Math.max(lane.high, +value)];
      else lane.inflight = Math.max(lane.inflight, +value);
      lanes.set(key, lane);
    }
  };
  const timer = setInterval(read, 500);
  return async () => {
    clearInterval(timer);
    await read();
    const limits = [...lanes.entries()]
      .filter(([, lane]) => lane.inflight > 0)
      .map(
        ([key, { low, high, inflight }]) =>
          `${key}: limit ${low === high ? low : `${low}–${high}`}, in flight ≤ ${inflight}`,
      );
    return [...limits, `shed before routing: ${shed.last - (shed.first ?? 0)}`].join('; ');
  };
}

/** An answer with a status: neither timed out nor failed. */
const answered = (answer) => typeof answer.status === 'number' && answer.status > 0;

/** What cpuPer takes of the CPU so far: every process's (`cpu`: `{ system, extra }`) and the load generator's. */
const cpuNow = (cpu) => ({ processes: cpuSample(cpu.system, { extra: cpu.extra }), own: process.cpuUsage() });

/**
 * Runs `segments` of `workload` with an agent of its own (closed after: the gateway would hold its
 * sockets), its requests from `next` (the workload's own: through the gateway), sampling the gateway's
 * admission unless `viaGateway` is false (a front that bypasses it). With `cpu` (`{ system, extra }`, as
 * cpuSample takes them), the CPU ms each process spent from the first request until every answer was in, per
 * request answered (bench/cpu.mjs), over every segment: past capacity the answers of one segment keep coming
 * well into the next, so no instant between them divides the CPU between them.
 */
async function run(workload, segments, { next = workload.next, viaGateway = true, cpu } = {}) {
  const agent = new Agent({ keepAlive: true });
  const stopSampling = viaGateway ? sampleAdmission(workload.metricsUrl) : async () => undefined;
  try {
    const before = cpu && cpuNow(cpu);
    const result = await schedule(next, segments, { agent });
    if (!cpu) return { ...result, admission: await stopSampling() };
    const after = cpuNow(cpu);
    const own = { user: after.own.user - before.own.user, system: after.own.system - before.own.system };
    const units = Math.max(result.answers.filter(answered).length, 1);
    return { ...result, admission: await stopSampling(), cpu: cpuPer(units, before.processes, after.processes, own) };
  } finally {
    agent.destroy();
  }
}

/**
 * The highest rate at which `step(rate)` resolves true: rising by `factor` from `start` (halved first while
 * it fails) until a step fails, then `refineSteps` bisections between the last pass and the first failure.
 * A step that fails is run once more before it counts: one stall (a collection, a statement's first
 * plan, autovacuum) would otherwise set the capacity, well below what the rate holds (reads passed at
 * 2× a capacity found that way, none refused).
 */
export async function searchCapacity(runStep, { start, factor, refineSteps }) {
  const step = async (rate) => (await runStep(rate)) || (await runStep(rate));
  let passed = 0;
  let failed;
  // Down from the start while it fails (a slow machine), else up until a step fails.
  for (let rate = start; passed === 0 && rate >= 1; rate = Math.floor(rate / 2)) {
    if (await step(rate)) passed = rate;
    else failed = rate;
  }
  for (let rate = Math.round(passed * factor); passed > 0 && failed === undefined; rate = Math.round(rate * factor)) {
    if (await step(rate)) passed = rate;
    else failed = rate;
  }
  for (let i = 0; i < refineSteps && passed > 0 && failed - passed > 1; i++) {
    const rate = Math.round((passed + failed) / 2);
    if (await step(rate)) passed = rate;
    else failed = rate;
  }
  return passed;
}

/**
 * The highest rate whose `stepSeconds` of open loop passes (every answer 2xx, p99 under 250 ms, the rate
 * held by the load generator), by `searchCapacity` from `workload.start`. Each step: rate, pass, figures.
 */
export async function findCapacity(workload, pools, { stepSeconds, factor, refineSteps }) {
  const steps = [];
  const step = async (rate) => {
    const { sentPerSecond, answers } = await run(workload, [{ rate, seconds: stepSeconds }]);
    const figures = tally(answers);
    if (workload.recipients) await notifiedOnce(pools, workload.recipients, answers);
    const pass =
      figures.ok === figures.answers && figures.admitted.p99 < CAPACITY_P99_MS && sentPerSecond[0] >= 0.95 * rate;
    steps.push({
      rate,
      pass,
      sentPerSecond: sentPerSecond[0],
      p99Ms: figures.admitted.p99,
      notOk: figures.answers - figures.ok,
      refused: figures.refused,
    });
    console.log(
      `    ${workload.short} at ${rate}/s: ${pass ? 'pass' : 'fail'} (p99 ${figures.admitted.p99} ms, ` +
        `${figures.answers - figures.ok} not 2xx of which ${figures.refused} refused, sent at ${sentPerSecond[0]}/s)`,
    );
    return pass;
  };
  const capacity = await searchCapacity(step, { start: workload.start, factor, refineSteps });
  return { capacity, steps };
}

/**
 * What ended a capacity search: the failed tries at the lowest rate that failed above the capacity found
 * (a step fails when both its tries do), and whether they failed on latency (p99 at or over the bound, or
 * the load generator behind) rather than on refusals while the p99 was still under it.
 */
export function endedBy(steps, capacity) {
  const failedAbove = steps.filter((step) => !step.pass && step.rate > capacity);
  const bound = Math.min(...failedAbove.map((step) => step.rate));
  const ending = failedAbove.filter((step) => step.rate === bound);
  const onLatency = (step) =>
    step.p99Ms === null || step.p99Ms >= CAPACITY_P99_MS || step.sentPerSecond < 0.95 * step.rate;
  const figure = ending
    .map(
      (step) =>
        `${step.rate}/s: p99 ${step.p99Ms} ms, ${step.refused} refused, ${step.notOk - step.refused} other not 2xx`,
    )
    .join('; ');
  return { byLatency: ending.some(onLatency), figure: figure || 'no step failed' };
}

/** One phase's figures from its answers: counts, goodput, latencies, and for mentions the notifications. */
async function phaseFigures(workload, pools, { level, rate, seconds, sentPerSecond, answers }) {
  const figures = tally(answers);
  return {
    level,
    offeredPerSecond: rate,
    sentPerSecond,
    goodputPerSecond: Math.round(figures.ok / seconds),
    ...figures,
    ...(workload.recipients ? { notified: await notifiedOnce(pools, workload.recipients, answers) } : {}),
  };
}

/** `{ gateway#0: 0.41, … }`: the CPU ms per request of the processes that make a front, out of a phase's by part. */
const frontCpu = (cpu, front) => Object.fromEntries(front.map((part) => [part, cpu[part] ?? 0]));

/** A phase's CPU in the log, on a line of its own: the front's processes, and every process's total. */
function logCpu({ cpu, cpuMsPerRequest, cpuWithRecovery }) {
  if (!cpu) return;
  const front = Object.entries(cpuMsPerRequest).map(([part, ms]) => `${part} ${ms}`);
  const span = cpuWithRecovery ? ', with the recovery after it' : '';
  console.log(`      CPU ms per request answered: ${front.join(', ')} (every process: ${cpu.total}${span})`);
}

/**
 * Open loop at each of `levels` × `capacity` for `seconds`, one after the other, through the gateway, or
 * through another front `via` whose requests `next` builds (the same requests at the same rates: the
 * admitting proxy, HAProxy → gateway). With `recovery` (`{ level, seconds }`), the last level runs straight
 * into `recovery.seconds` at `recovery.level` × capacity, whose p99 counts from 5 s on. `viaGateway`: false for
 * a front that bypasses the gateway, whose admission is not sampled then. With `cpu` (`{ system,
 * extra, front }`), each phase's CPU ms per request answered by process (`cpu`, bench/cpu.mjs), and
 * `cpuMsPerRequest` of the `front` processes, what the front costs (`['haproxy', 'gateway#0']`); the level
 * that runs into the recovery has them over both (`cpuWithRecovery`), the recovery none of its own.
 */
export async function overloadPhases(
  workload,
  pools,
  { capacity, levels, seconds, recovery, next = workload.next, via = 'gateway', viaGateway = true, cpu },
) {
  const phases = [];
  const through = via === 'gateway' ? '' : ` via ${via}`;
  const withCpu = (spent, recovers) =>
    spent
      ? { cpu: spent, cpuMsPerRequest: frontCpu(spent, cpu.front), ...(recovers ? { cpuWithRecovery: true } : {}) }
      : {};
  for (const [index, level] of levels.entries()) {
    const rate = Math.round(level * capacity);
    const recovers = recovery && index === levels.length - 1;
    const recoveryRate = recovers && Math.round(recovery.level * capacity);
    const segments = [{ rate, seconds }, ...(recovers ? [{ rate: recoveryRate, seconds: recovery.seconds }] : [])];
    const measured = await run(workload, segments, { next, viaGateway, cpu });
    const { sentPerSecond, answers, admission } = measured;
    const inSegment = (segment) => answers.filter((a) => a.segment === segment);
    const figures = {
      ...(await phaseFigures(workload, pools, {
        level,
        rate,
        seconds,
        sentPerSecond: sentPerSecond[0],
        answers: inSegment(0),
      })),
      admission,
    };
    console.log(`    ${workload.short} at ${level}× (${rate}/s)${through}: ${JSON.stringify(figures)}`);
    phases.push({ ...figures, ...withCpu(measured.cpu, recovers) });
    logCpu(phases.at(-1));
    if (recovers) {
      const late = tally(inSegment(1).filter((a) => a.dueS >= RECOVERY_AFTER_SECONDS));
      const recoveryFigures = await phaseFigures(workload, pools, {
        level: recovery.level,
        rate: recoveryRate,
        seconds: recovery.seconds,
        sentPerSecond: sentPerSecond[1],
        answers: inSegment(1),
      });
      phases.push({ ...recoveryFigures, recovery: true, fromSeconds: RECOVERY_AFTER_SECONDS, late });
      console.log(
        `    ${workload.short} recovery at ${recovery.level}× (${recoveryRate}/s)${through}, from ${RECOVERY_AFTER_SECONDS} s on: ${JSON.stringify(late)}`,
      );
    }
  }
  return phases;
}
