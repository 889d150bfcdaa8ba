import { existsSync } from 'node:fs';
import { processName } from '../cpu.mjs';
import { TIMEOUT_MS } from '../open-loop.mjs';
import { CAPACITY_P99_MS, endedBy, findCapacity, overloadPhases, overloadWorkloads } from '../overload.mjs';
import { startFront, startProcess } from '../reference-phase.mjs';
import { HAPROXY } from '../../scripts/front.mjs';
import { PORT_OFFSET } from './context.mjs';

const ADMITTING_PROXY_PORT = 3096 + PORT_OFFSET;
const HAPROXY_PORT = 3088 + PORT_OFFSET;

/** The ways in front of the services: `via` in the rows, `tag` after a row's scenario. */
const GATEWAY = { via: 'gateway', tag: '' };
const FLOOR = { via: 'admitting proxy', tag: ' (floor)' };
const HAPROXY_FRONT = { via: 'haproxy → gateway', tag: ' (haproxy)' };

/**
 * `overload`: each workload's capacity through the gateway, then open loop past it, beside its floor and
 * HAProxy in front of the gateway (bench/overload.mjs), each with the CPU per request of its processes.
 */
export async function overloadPart(ctx) {
  const { system, pools, fixture, scenarios, config, phase, target, saved } = ctx;
  if (config.overloadFront && !existsSync(HAPROXY))
    throw new Error(`BENCH_OVERLOAD_FRONT=1, but ${HAPROXY} is missing: node scripts/setup.mjs --haproxy installs it`);
  if (!config.overloadFront) {
    const why = existsSync(HAPROXY)
      ? 'BENCH_OVERLOAD_FRONT=0'
      : `${HAPROXY} is missing (node scripts/setup.mjs --haproxy)`;
    console.log(`  overload: without HAProxy in front of the gateway: ${why}`);
  }
  const gateways = system.processes.filter((p) => p.service === 'gateway').map(processName);
  const workloads = await overloadWorkloads(system, pools, fixture, scenarios);
  // Each workload's capacity on this machine, then open loop at multiples of it (bench/overload.mjs).
  for (const workload of workloads.filter((w) => config.overloadWorkloads.includes(w.short))) {
    const { capacity, steps } = await phase(
      `overload: capacity of ${workload.name} through the gateway, ${config.capacityStepSeconds} s a step`,
      () =>
        findCapacity(workload, pools, {
          stepSeconds: config.capacityStepSeconds,
          factor: config.capacityFactor,
          refineSteps: config.capacityRefineSteps,
        }),
    );
    saved.overload.push({ workload: workload.name, capacity, steps });
    const capacityStep = steps.find((step) => step.rate === capacity);
    target(
      `overload: capacity of ${workload.name} (highest open-loop rate with p99 < ${CAPACITY_P99_MS} ms, every answer 2xx)`,
      capacity > 0
        ? `${capacity} req/s (p99 ${capacityStep.p99Ms} ms; ${steps.length} steps of ${config.capacityStepSeconds} s)`
        : `none: ${workload.start} req/s already failed`,
      capacity > 0,
    );
    // The capacity is the CPU's when the search ends on latency; ending on refusals while answers are still
    // fast would mean admission control sets it.
    const ended = endedBy(steps, capacity);
    target(
      `overload: the capacity search of ${workload.short} ended by latency, not by refusals`,
      ended.figure,
      ended.byLatency,
    );
    if (capacity === 0) continue;
    const [phases, floor, haproxy] = await pastCapacityThroughEachFront(ctx, workload, capacity, gateways);
    Object.assign(saved.overload.at(-1), { phases, floor, ...(haproxy ? { haproxy } : {}) });
    for (const p of phases) pastCapacity(ctx, workload, capacity, p);
    againstFloor(ctx, workload, phases, floor);
    for (const p of haproxy ?? []) pastCapacity(ctx, workload, capacity, p, HAPROXY_FRONT);
  }
}

/** The levels past capacity, × capacity; after the last, the gateway's recovery at 0.5×. */
const LEVELS = [0.5, 1, 2, 4];

/**
 * Open loop at each of LEVELS × `capacity` through each front that measures it, level by level: the gateway
 * alone (every level, the last running into its recovery), the floor (2× and 4×) and HAProxy in front of the
 * gateway (1×, 2× and 4×, where installed). Level by level, so that the fronts compared at a level ran within
 * a minute or two of each other, and in turn first and last (`inTurn`): the mentions' answers were seen to
 * slow as a run went on, and a front measured after the others would carry that as its own difference.
 * Resolves with each front's phases, in that order (HAProxy's undefined when it is not measured).
 */
async function pastCapacityThroughEachFront(ctx, workload, capacity, gateways) {
  const { system, config } = ctx;
  const fronts = [
    {
      front: GATEWAY,
      what: 'the gateway',
      levels: LEVELS,
      next: workload.next,
      viaGateway: true,
      cpu: { system, front: gateways },
    },
  ];
  try {
    fronts.push(await startFloor(ctx, workload));
    if (config.overloadFront) fronts.push(await startHaproxy(ctx, workload, gateways));
    const phases = fronts.map(() => []);
    for (const [step, level] of LEVELS.entries())
      for (const [index, front] of inTurn(fronts.entries(), step)) {
        if (!front.levels.includes(level)) continue;
        const recovery =
          front.front === GATEWAY && level === LEVELS.at(-1)
            ? { level: 0.5, seconds: config.overloadRecoverySeconds }
            : undefined;
        phases[index].push(...(await frontPhases(ctx, workload, capacity, { ...front, levels: [level], recovery })));
      }
    return phases;
  } finally {
    for (const front of fronts) await front.stop?.();
  }
}

/** The fronts in order at even steps and in reverse at odd ones, so that none is always measured last. */
const inTurn = (entries, step) => (step % 2 === 0 ? [...entries] : [...entries].reverse());

/** A phase's row in the table, through `front` (GATEWAY, FLOOR, HAPROXY_FRONT). */
function overloadRow(workload, p, front) {
  const level = p.recovery ? `${p.level}× right after 4× (recovery)` : `${p.level}×`;
  return {
    scenario: `${workload.name}: ${level} capacity, open loop at ${p.offeredPerSecond} req/s${front.tag}`,
    via: front.via,
    connections: null,
    requestsPerSecond: p.sentPerSecond,
    goodputPerSecond: p.goodputPerSecond,
    ok: p.ok,
    refused: p.refused,
    tooMany: p.tooMany,
    other: p.other,
    timeouts: p.timeouts,
    p50Ms: p.admitted.p50,
    p99Ms: p.admitted.p99,
    maxMs: p.admitted.max,
    refusedP99Ms: p.refusedMs.p99,
    ...(p.late ? { p99FromFiveSecondsMs: p.late.admitted.p99 } : {}),
    ...(p.notified ? { notifiedMissing: p.notified.missing, notifiedTwice: p.notified.doubled } : {}),
    ...(p.otherKinds ? { errorKinds: p.otherKinds } : {}),
    ...(p.admission ? { admission: p.admission } : {}),
    ...(p.cpuMsPerRequest ? { cpuMsPerRequest: p.cpuMsPerRequest } : {}),
    ...(p.cpuWithRecovery ? { cpuWithRecovery: true } : {}),
  };
}

/**
 * One phase of a workload at a multiple of its capacity through `front` (the gateway alone, or HAProxy in
 * front of it): its row, and past capacity its targets, named `overload` through the gateway alone and
 * `overload via <front>` otherwise (the recovery's through the gateway alone).
 */
function pastCapacity({ config, rows, target }, workload, capacity, p, front = GATEWAY) {
  rows.push(overloadRow(workload, p, front));
  // The targets hold past capacity; a phase whose rate the load generator could not hold measured less than asked.
  const held = p.sentPerSecond >= 0.9 * p.offeredPerSecond;
  const short = held ? '' : `; the load generator sent only ${p.sentPerSecond} of ${p.offeredPerSecond} req/s`;
  const name = front === GATEWAY ? 'overload' : `overload via ${front.via}`;
  const at = `${workload.short} at ${p.level}× capacity (${p.offeredPerSecond} req/s, ${config.overloadSeconds} s)`;
  if (p.recovery) {
    const late = p.late;
    target(
      `overload: ${workload.short}, p99 back under ${CAPACITY_P99_MS} ms within 5 s after 4× (0.5× capacity; requests sent from 5 s on, every answer 2xx)`,
      `p99 ${late.admitted.p99} ms over ${late.answers} requests, ${late.answers - late.ok} ` +
        `not 2xx (${late.refused} refused, ${late.timeouts} timeouts)${short}`,
      held && late.answers > 0 && late.ok === late.answers && late.admitted.p99 < CAPACITY_P99_MS,
    );
    return;
  }
  if (p.level < 2) return;
  const bar = barFor(workload, front);
  if (bar.goodput !== undefined)
    target(
      `${name}: ${at}: goodput ≥ ${100 * bar.goodput} % of capacity`,
      `${p.goodputPerSecond} 2xx/s = ${Math.round((100 * p.goodputPerSecond) / capacity)} % of ${capacity}${short}`,
      held && p.goodputPerSecond >= bar.goodput * capacity,
    );
  if (bar.latency)
    target(
      `${name}: ${at}: p99 of admitted < 500 ms`,
      `p50 ${p.admitted.p50} ms, p99 ${p.admitted.p99} ms over ${p.ok}${short}`,
      held && p.admitted.p99 !== null && p.admitted.p99 < 500,
    );
  if (bar.refusedP99Ms !== undefined)
    target(
      `${name}: ${at}: p99 of refused (503) < ${bar.refusedP99Ms} ms`,
      p.refused > 0
        ? `p50 ${p.refusedMs.p50} ms, p99 ${p.refusedMs.p99} ms over ${p.refused}${short}`
        : `none refused${short}`,
      held && (p.refused === 0 || p.refusedMs.p99 < bar.refusedP99Ms),
    );
  target(
    `${name}: ${at}: 0 timeouts (${TIMEOUT_MS / 1000} s), 0 answers but 2xx, 429, 503`,
    `${p.timeouts} timeouts, ${p.other} others${p.otherKinds ? ` (${p.otherKinds})` : ''}; ${p.ok} 2xx, ${p.tooMany} 429, ${p.refused} 503${short}`,
    held && p.timeouts === 0 && p.other === 0,
  );
  if (p.notified) {
    target(
      `${name}: ${at}: every 201 mention notified once`,
      `${p.notified.created} created: ${p.notified.missing} missing, ${p.notified.doubled} twice (all in ${p.notified.drainSeconds} s after the phase)`,
      p.notified.missing === 0 && p.notified.doubled === 0,
    );
  }
}

/**
 * What a phase past capacity must hold, by workload and front. The gateway alone: goodput ≥ 80 %, admitted p99 <
 * 500 ms, refusals p99 < 100 ms (the waiting room's target). Through HAProxy, as `npm start` runs it: writes
 * admitted within 500 ms or refused within 250 ms (the target and a margin for the hop) with goodput ≥ 90 %;
 * reads keep what the front is there for, no time-out (their latencies are in the rows).
 */
function barFor(workload, front) {
  if (front !== HAPROXY_FRONT) return { goodput: 0.8, latency: true, refusedP99Ms: 100 };
  return workload.short === 'reads' ? { latency: false } : { goodput: 0.9, latency: true, refusedP99Ms: 250 };
}

/** How many times the floor's figure the gateway's may be, past capacity, on a machine the load saturates. */
const FLOOR_RATIO = 2;

/**
 * `levels` × `capacity` of `workload` through `front` (named `what` in the phase), its requests from `next`,
 * the last level running into `recovery` when given, each with the CPU per request of the processes that make
 * the front (`cpu`: `extra`, its pids that are not the system's, and `front`).
 */
function frontPhases(
  { pools, config, phase },
  workload,
  capacity,
  { front, what, levels, next, viaGateway, cpu, recovery },
) {
  const then = recovery ? `, then ${recovery.level}× for ${recovery.seconds} s` : '';
  return phase(
    `overload${front === GATEWAY ? '' : ` via ${front.via}`}: ${workload.name} through ${what}, ` +
      `at ${levels.join('×, ')}× ${capacity} req/s, ${config.overloadSeconds} s each${then}`,
    () =>
      overloadPhases(workload, pools, {
        capacity,
        levels,
        seconds: config.overloadSeconds,
        next,
        via: front.via,
        viaGateway,
        cpu,
        recovery,
      }),
  );
}

/**
 * The floor of a workload past capacity (bench/reference/admitting-proxy.mjs: plain Fastify with a fixed
 * limit, the same services, the same requests at the same rates, 2× and 4×): what refusing the excess and
 * proxying the rest costs at the least on this machine.
 */
async function startFloor({ system, scenarios }, workload) {
  const services = [...new Set(['comments', ...scenarios.map((s) => s.service)])];
  const proxy = await startProcess('bench/reference/admitting-proxy.mjs', ADMITTING_PROXY_PORT, {
    UPSTREAMS: JSON.stringify(Object.fromEntries(services.map((service) => [service, system.urlOf(service)]))),
  });
  return {
    front: FLOOR,
    what: 'a plain Fastify proxy with a fixed limit',
    levels: [2, 4],
    next: workload.nextViaFloor(proxy.url),
    viaGateway: false,
    cpu: { system, extra: { [FLOOR.via]: proxy.pid }, front: [FLOOR.via] },
    stop: () => proxy.stop(),
  };
}

/**
 * The floor's phases printed beside the gateway's, with the targets that hold on a machine the load generator and
 * the system saturate between them: the gateway's refused and admitted p99 within FLOOR_RATIO × the floor's.
 */
function againstFloor({ rows, target }, workload, phases, floor) {
  for (const f of floor) {
    const gateway = phases.find((p) => !p.recovery && p.level === f.level);
    const at = `${workload.short} at ${f.level}× capacity (${f.offeredPerSecond} req/s)`;
    rows.push(overloadRow(workload, f, FLOOR));
    const within = (ours, floorMs) => ours === null || (floorMs !== null && ours <= FLOOR_RATIO * floorMs);
    target(
      `overload vs floor: ${at}: p99 of refused ≤ ${FLOOR_RATIO} × the admitting proxy's`,
      `gateway ${gateway.refusedMs.p99 ?? 'none refused'} ms, floor ` +
        `${f.refusedMs.p99 ?? 'none refused'} ms (${f.refused} refused, ${f.goodputPerSecond} 2xx/s)`,
      within(gateway.refusedMs.p99, f.refusedMs.p99 ?? f.admitted.p99),
    );
    target(
      `overload vs floor: ${at}: p99 of admitted ≤ ${FLOOR_RATIO} × the admitting proxy's`,
      `gateway ${gateway.admitted.p99} ms, floor ${f.admitted.p99} ms (${f.timeouts} timeouts at the floor, ${gateway.timeouts} at the gateway)`,
      within(gateway.admitted.p99, f.admitted.p99),
    );
  }
}

/**
 * The front that queues and sheds reads at the edge (scripts/front.mjs: HAProxy in front of the gateway, a fixed
 * number of reads in flight to it, the excess queued briefly, then refused at once; writes straight on), at
 * 1×, 2× and 4× capacity with the gateway's requests (1×: what the front adds where nothing needs refusing),
 * held to the gateway's own targets past capacity. Its CPU per request is HAProxy's and the gateway's: both
 * serve every request admitted.
 */
async function startHaproxy({ system, config }, workload, gateways) {
  const { maxconn, queueMs, queueLimit } = config.haproxy;
  // The same configuration as `npm start`'s, with the bench's limits.
  const haproxy = await startFront(HAPROXY_PORT, system.urlOf('gateway'), config.haproxy);
  return {
    front: HAPROXY_FRONT,
    what:
      `HAProxy (at most ${maxconn} reads in flight to the gateway, the next waiting up to ${queueMs} ms, ` +
      `503 at once past ${queueLimit} waiting; writes straight on)`,
    levels: [1, 2, 4],
    next: workload.nextVia(haproxy.url),
    viaGateway: true,
    cpu: { system, extra: { haproxy: haproxy.pid }, front: ['haproxy', ...gateways] },
    stop: () => haproxy.stop(),
  };
}
