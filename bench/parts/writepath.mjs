import { CAPACITY_P99_MS } from '../overload.mjs';
import { tokenSigner } from '../streams.mjs';
import { CPU_SHARES, writePathComparison } from '../write-path.mjs';
import { AMQP_URL, NAME, PORT_OFFSET, ratio } from './context.mjs';

const WRITE_PATH_PORTS = {
  reference: { comments: 3095 + PORT_OFFSET, notifications: 3094 + PORT_OFFSET },
  architecture: {
    comments: 3093 + PORT_OFFSET,
    notifications: 3092 + PORT_OFFSET,
    counts: 3091 + PORT_OFFSET,
    // Not 3090: 4190 is one of the ports fetch refuses.
    proxy: 3089 + PORT_OFFSET,
  },
};
/** The write path's targets, against the architecture's floor in the same run (issue 51). */
const WRITE_PATH_CPU_RATIO = 1.3;
const WRITE_PATH_ROUND_TRIPS = 8;
const WRITE_PATH_CAPACITY_RATIO = 0.7;
/**
 * The share of the system's capacity at which the write path is timed with `BENCH_STREAMS` streams open; and a lower
 * one, a figure beside it.
 */
const WRITE_PATH_CROWD_SHARE = 0.7;
const WRITE_PATH_CROWD_FIGURE_SHARE = 0.5;
const SIDES = {
  system: 'gateway',
  reference: 'plain Node, the same guarantees',
  architecture: 'the architecture’s floor: plain Node behind a bare proxy, with what the design requires',
};

/**
 * `writepath`: a mentioned comment's capacity, CPU and round trips against the plain-Node floors of
 * bench/write-path-floors.mjs (bench/write-path.mjs).
 */
export async function writePathPart({ system, pools, fixture, config, phase, rows, target, saved }) {
  saved.writePath = await phase(
    `write path: the system and its floors in plain Node, capacity, CPU and round trips per mentioned comment`,
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
  const { capacity, roundTrips } = writePath;
  for (const { share, rate, runs } of writePath.shares) {
    for (const [name, run] of Object.entries(runs)) {
      const { cpu, idleCpu: _idleCpu, ...figures } = run;
      rows.push({
        scenario: `POST comment → event: notification, open loop at ${rate}/s = ${share} × capacity (${run.sent}, 20 streams)`,
        via: SIDES[name],
        connections: null,
        ...figures,
        cpuMsPerComment: cpu.total,
        ...(share === 0.5
          ? {
              roundTripsPerComment: roundTrips[name].total,
              capacityPerSecond: capacity[name].capacity,
              capacityEndedBy: capacity[name].endedBy.by,
            }
          : {}),
      });
    }
  }
  cpuTargets(writePath, target);
  const byPart = (counted) =>
    Object.entries(counted.byPart)
      .map(([part, n]) => `${part} ${n}`)
      .join(', ');
  target(
    `write path: ≤ ${WRITE_PATH_ROUND_TRIPS} round trips to PostgreSQL per mentioned comment`,
    `${roundTrips.system.total} (${byPart(roundTrips.system)}); the architecture’s floor ` +
      `${roundTrips.architecture.total} (${byPart(roundTrips.architecture)}); plain Node ${roundTrips.reference.total}`,
    roundTrips.system.total <= WRITE_PATH_ROUND_TRIPS,
  );
  crowdTargets(writePath, { rows, target });
  notificationCaseRows(writePath, { rows, target });
  const [ours, floor] = [capacity.system, capacity.architecture];
  const ended = (name) => `${capacity[name].endedBy.by ?? 'nothing'} (${capacity[name].endedBy.figure})`;
  target(
    `write path: capacity ≥ ${WRITE_PATH_CAPACITY_RATIO} × the architecture’s floor, the system’s search ended by ` +
      `latency, not by admission (highest open-loop rate with POST → event: notification p99 < ${CAPACITY_P99_MS} ms)`,
    `${ours.capacity} / ${floor.capacity} mentioned comments/s = ${ratio(ours.capacity, floor.capacity)}; ` +
      `plain Node ${capacity.reference.capacity}/s. Ended by: the system ${ended('system')}; ` +
      `the architecture’s floor ${ended('architecture')}; plain Node ${ended('reference')}`,
    ours.capacity >= WRITE_PATH_CAPACITY_RATIO * floor.capacity && floor.capacity > 0 && ours.endedBy.by === 'latency',
  );
}

/**
 * CPU per mentioned comment against the architecture's floor at half the capacity, and at each share
 * whether it falls as the rate rises (the relays' and consumers' batches).
 */
function cpuTargets(writePath, target) {
  const { runs } = writePath;
  const [ours, floor, plain] = [runs.system.cpu.total, runs.architecture.cpu.total, runs.reference.cpu.total];
  // The floor must have done its whole work over the part: each comment counted and two notifications stored.
  const work = writePath.architectureWork;
  const complete = work.complete && Object.values(runs).every((run) => run.errors === 0 && run.duplicates === 0);
  target(
    `write path: CPU per mentioned comment ≤ ${WRITE_PATH_CPU_RATIO} × the architecture’s floor ` +
      `(both at ${writePath.rate}/s, 0.5 × capacity)`,
    `${ours} / ${floor} ms = ${ratio(ours, floor)}; plain Node ${plain} ms (${ratio(ours, plain)} ×). ` +
      `The floor over the part: ${work.comments} comments, ${work.counted} counted, ` +
      `${work.mentions} mentions and ${work.toOwner} owner's notifications stored`,
    ours <= WRITE_PATH_CPU_RATIO * floor && complete,
  );
  const totals = (name) => writePath.shares.map((share) => share.runs[name].cpu.total);
  const falling = (values) => values.every((value, i) => i === 0 || value <= values[i - 1]);
  target(
    `write path: the system’s CPU per comment falls as the rate rises (${CPU_SHARES.join(', ')} × capacity)`,
    writePath.shares
      .map(
        ({ share, rate, runs: at }) =>
          `${share} × (${rate}/s): ${at.system.cpu.total} ms, the floor ${at.architecture.cpu.total} ms ` +
          `(${ratio(at.system.cpu.total, at.architecture.cpu.total)} ×)`,
      )
      .join('; '),
    falling(totals('system')),
  );
}

/** The system and the architecture's floor with a crowd of streams open; the target is the system's. */
function crowdTargets(writePath, { rows, target }) {
  for (const [name, runs] of Object.entries(writePath.crowded))
    for (const run of runs)
      rows.push({
        scenario: `POST comment → event: notification, open loop at ${run.rate}/s (${run.sent}, ${run.streams} streams)`,
        via: SIDES[name],
        connections: null,
        ...run,
      });
  const [crowded, floor] = [writePath.crowded.system.at(-1), writePath.crowded.architecture.at(-1)];
  target(
    `write path: POST → event: notification p99 < ${CAPACITY_P99_MS} ms with ${crowded.streams} ` +
      `streams open, at ${WRITE_PATH_CROWD_SHARE} × the system's capacity (${crowded.rate}/s)`,
    `p50 ${crowded.p50Ms} ms, p99 ${crowded.p99Ms} ms; ${crowded.sent - crowded.errors} of ${crowded.sent} arrived, ${crowded.duplicates} twice` +
      `; the architecture’s floor p50 ${floor.p50Ms} ms, p99 ${floor.p99Ms} ms, ${floor.sent - floor.errors} of ${floor.sent}` +
      writePath.crowded.system
        .slice(0, -1)
        .map(
          (run) =>
            `; at ${run.rate}/s p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ${run.sent - run.errors} of ${run.sent}`,
        )
        .join(''),
    crowded.p99Ms !== null && crowded.p99Ms < CAPACITY_P99_MS && crowded.errors === 0 && crowded.duplicates === 0,
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
