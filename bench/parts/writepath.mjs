import { CAPACITY_P99_MS } from '../overload.mjs';
import { tokenSigner } from '../streams.mjs';
import { writePathComparison } from '../write-path.mjs';
import { AMQP_URL, NAME, PORT_OFFSET, ratio } from './context.mjs';

const WRITE_PATH_PORTS = { comments: 3095 + PORT_OFFSET, notifications: 3094 + PORT_OFFSET };
/** The write path's targets, against the plain-Node reference in the same run. */
const WRITE_PATH_CPU_RATIO = 1.5;
const WRITE_PATH_ROUND_TRIPS = 12;
const WRITE_PATH_CAPACITY_RATIO = 0.6;
/**
 * The share of the system's capacity at which the write path is timed with `BENCH_STREAMS` streams open; and a lower
 * one, a figure beside it.
 */
const WRITE_PATH_CROWD_SHARE = 0.7;
const WRITE_PATH_CROWD_FIGURE_SHARE = 0.5;

/**
 * `writepath`: a mentioned comment's capacity, CPU and round trips against bench/reference/write-path.mjs
 * (bench/write-path.mjs).
 */
export async function writePathPart({ system, pools, fixture, config, phase, rows, target, saved }) {
  saved.writePath = await phase(
    `write path: the system and the same guarantees in plain Node, capacity, CPU and round trips per mentioned comment`,
    () =>
      writePathComparison({
        system,
        pools,
        fixture,
        signToken: tokenSigner(NAME, fixture.viewer.token),
        database: NAME,
        amqpUrl: AMQP_URL,
        ports: WRITE_PATH_PORTS,
        start: config.writePathStart,
        stepSeconds: config.capacityStepSeconds,
        factor: config.capacityFactor,
        refineSteps: config.capacityRefineSteps,
        rate: config.writePathRate || undefined,
        seconds: config.writePathSeconds,
        countSeconds: config.writePathCountSeconds,
        crowdStreams: config.streams,
        crowdShares: [WRITE_PATH_CROWD_FIGURE_SHARE, WRITE_PATH_CROWD_SHARE],
      }),
  );
  const { writePath } = saved;
  const { capacity, runs: measured, roundTrips } = writePath;
  for (const [name, via] of [
    ['system', 'gateway'],
    ['reference', 'reference (plain Node, same guarantees)'],
  ]) {
    const { cpu, idleCpu: _idleCpu, ...run } = measured[name];
    rows.push({
      scenario: `POST comment → event: notification, open loop at ${writePath.rate}/s (${run.sent}, 20 streams)`,
      via,
      connections: null,
      ...run,
      cpuMsPerComment: cpu.total,
      roundTripsPerComment: roundTrips[name].total,
      capacityPerSecond: capacity[name].capacity,
    });
  }
  const [ours, floor] = [measured.system.cpu.total, measured.reference.cpu.total];
  target(
    `write path: CPU per mentioned comment ≤ ${WRITE_PATH_CPU_RATIO} × the same guarantees in plain Node (both at ${writePath.rate}/s)`,
    `${ours} / ${floor} ms = ${ratio(ours, floor)}`,
    ours <= WRITE_PATH_CPU_RATIO * floor && measured.system.errors === 0 && measured.reference.errors === 0,
  );
  const byPart = (counted) =>
    Object.entries(counted.byPart)
      .map(([part, n]) => `${part} ${n}`)
      .join(', ');
  target(
    `write path: ≤ ${WRITE_PATH_ROUND_TRIPS} round trips to PostgreSQL per mentioned comment`,
    `${roundTrips.system.total} (${byPart(roundTrips.system)}); plain Node ${roundTrips.reference.total}`,
    roundTrips.system.total <= WRITE_PATH_ROUND_TRIPS,
  );
  for (const run of writePath.crowded) {
    rows.push({
      scenario: `POST comment → event: notification, open loop at ${run.rate}/s (${run.sent}, ${run.streams} streams)`,
      via: 'gateway',
      connections: null,
      ...run,
    });
  }
  const crowded = writePath.crowded.at(-1);
  target(
    `write path: POST → event: notification p99 < ${CAPACITY_P99_MS} ms with ${crowded.streams} ` +
      `streams open, at ${WRITE_PATH_CROWD_SHARE} × the system's capacity (${crowded.rate}/s)`,
    `p50 ${crowded.p50Ms} ms, p99 ${crowded.p99Ms} ms; ${crowded.sent - crowded.errors} of ${crowded.sent} arrived, ${crowded.duplicates} twice` +
      writePath.crowded
        .slice(0, -1)
        .map(
          (run) =>
            `; at ${run.rate}/s p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ${run.sent - run.errors} of ${run.sent}`,
        )
        .join(''),
    crowded.p99Ms !== null && crowded.p99Ms < CAPACITY_P99_MS && crowded.errors === 0 && crowded.duplicates === 0,
  );
  notificationCaseRows(writePath, { rows, target });
  const [ourCapacity, floorCapacity] = [capacity.system.capacity, capacity.reference.capacity];
  target(
    `write path: capacity ≥ ${WRITE_PATH_CAPACITY_RATIO} × the same guarantees in plain Node ` +
      `(highest open-loop rate with POST → event: notification p99 < ${CAPACITY_P99_MS} ms)`,
    `${ourCapacity} / ${floorCapacity} mentioned comments/s = ${ratio(ourCapacity, floorCapacity)}`,
    ourCapacity >= WRITE_PATH_CAPACITY_RATIO * floorCapacity && floorCapacity > 0,
  );
}

/**
 * The system's CPU per comment and per notification with one notification a comment (a mention on the
 * author's own recipe) and two (a mention on another user's recipe: its owner's `comment_recipe` too,
 * docs/api.md §11.4), side by side at the same rate; per notification it must not grow.
 */
function notificationCaseRows(writePath, { rows, target }) {
  const [one, two] = writePath.notificationCases;
  for (const run of writePath.notificationCases) {
    const { case: name, cpu, perNotification, posts: _posts, ...figures } = run;
    rows.push({
      scenario: `POST comment, ${name}, open loop at ${writePath.rate}/s (${run.sent})`,
      via: 'gateway',
      connections: null,
      ...figures,
      cpuMsPerComment: cpu.total,
      cpuMsPerNotification: perNotification.total,
    });
  }
  const complete = (run) => run.errors === 0 && run.notifications === run.sent * (run === one ? 1 : 2);
  target(
    `write path: CPU per notification with two a comment (a mention on another user's recipe) ≤ with one (on the author's own), both at ${writePath.rate}/s`,
    `${two.perNotification.total} ms (${two.cpu.total} per comment, ${two.notifications} notifications of ${two.sent}) ` +
      `vs ${one.perNotification.total} ms (${one.cpu.total} per comment, ${one.notifications} of ${one.sent})`,
    two.perNotification.total <= one.perNotification.total && complete(one) && complete(two),
  );
}
