// The campaign's lanes: independent sequences of faults that run at the same time, each drawn from a
// seeded stream of its own and paced so that every kind reaches its quota within the requested time.
import { injectFault, restoreHeld, restoreHosts, restorePostgres, restoreProxies, restoreRabbitmq } from './faults.mjs';
import { restorePush } from './push.mjs';

/**
 * What two cores can inject of the kinds that stop a server or an instance, as the campaigns measured it
 * with the whole system at work (scripts/chaos/README.md): a `pg_ctl` stop and start 4.8–6.9 s, a
 * `rabbitmqctl stop_app` and `start_app` 10.4 s, a kill waits for the other instance to be ready. Their
 * minimum is set from it; the other kinds cost nothing to inject and keep `PER_KIND_PER_MINUTE`.
 */
const SERVER_STOPS_PER_MINUTE = 3;
const INSTANCE_STOPS_PER_MINUTE = 3;

/**
 * Per kind: how long it lasts (seconds, drawn in this range; 0 for a fault that is over at once) and
 * roughly what injecting and undoing it costs besides, as the campaigns' fault tables measure it on
 * a 2-CPU machine: pg_ctl stop + start ~0.6 s (more after an immediate stop: recovery), rabbitmqctl
 * stop_app + start_app ~3 s, one rabbitmqctl eval ~1 s, a kill ~2 s (its restart goes on in the
 * background, but a kill waits for the service's other instance to be ready first). The pacing leaves
 * the rest to the gaps.
 */
export const KINDS = {
  'postgres-stop-fast': { seconds: [0.5, 2], cost: 0.6, perMinute: SERVER_STOPS_PER_MINUTE },
  'postgres-stop-immediate': { seconds: [0.5, 2], cost: 0.8, perMinute: SERVER_STOPS_PER_MINUTE },
  'rabbitmq-stop-app': { seconds: [0.5, 3], cost: 3, perMinute: SERVER_STOPS_PER_MINUTE },
  'rabbitmq-drop-connections': { seconds: [0, 0], cost: 1, perMinute: SERVER_STOPS_PER_MINUTE },
  'instance-kill': { seconds: [0.5, 3], cost: 2, perMinute: INSTANCE_STOPS_PER_MINUTE },
  // A graceful stop takes up to the drain (3 s) before the instance is down.
  'instance-stop': { seconds: [0.5, 3], cost: 4, perMinute: INSTANCE_STOPS_PER_MINUTE },
  'database-latency': { seconds: [0.5, 2], cost: 0 },
  'database-cut': { seconds: [0.5, 2], cost: 0 },
  'broker-latency': { seconds: [0.5, 2], cost: 0 },
  'broker-cut': { seconds: [0.5, 2], cost: 0 },
  'host-servers-cut': { seconds: [0.5, 3], cost: 0 },
  'host-partition': { seconds: [0.5, 3], cost: 0 },
  'push-unavailable': { seconds: [0.5, 3], cost: 0 },
  'push-throttled': { seconds: [0.5, 3], cost: 0 },
  'push-hang': { seconds: [0.5, 3], cost: 0 },
};

/**
 * One lane per thing that can only fail one way at a time; `recover` undoes the lane's own kinds
 * after one of its faults went wrong, and touches nothing the other lanes are doing. Drops share the
 * RabbitMQ lane so that they never meet a stopped app (there would be no connection to close).
 */
export const LANES = [
  { name: 'postgres', kinds: ['postgres-stop-fast', 'postgres-stop-immediate'], recover: restorePostgres },
  { name: 'rabbitmq', kinds: ['rabbitmq-stop-app', 'rabbitmq-drop-connections'], recover: restoreRabbitmq },
  { name: 'process', kinds: ['instance-kill', 'instance-stop'], recover: restoreHeld },
  {
    name: 'network',
    kinds: ['database-latency', 'database-cut', 'broker-latency', 'broker-cut'],
    recover: restoreProxies,
  },
  // Host `a` (the gateway and instances #0) and host `b` (instances #1), see hosts.mjs: one cut from the
  // servers, or the two from each other.
  { name: 'partition', kinds: ['host-servers-cut', 'host-partition'], recover: restoreHosts },
  // The local push service the users' subscriptions point at (push.mjs): it refuses every push, or holds
  // each for a while, either side of the sender's 10 s time-out.
  { name: 'push', kinds: ['push-unavailable', 'push-throttled', 'push-hang'], recover: restorePush },
];

/** Faults of each kind per minute of campaign; 6.2 a minute gives 62 of each in 10 minutes. */
export const PER_KIND_PER_MINUTE = 6.2;
/** The lanes aim to reach their quota in this share of the time, then go on until it is up. */
const PACE = 0.9;
const MIN_GAP_SECONDS = 0.2;

/**
 * How many faults of each kind a campaign of `minutes` injects at least: `perMinute` of each a minute, or
 * fewer of a kind that two cores cannot inject as often (its own `perMinute`); one, even in a short one.
 */
export const quotasFor = (minutes, perMinute = PER_KIND_PER_MINUTE) =>
  Object.fromEntries(
    Object.entries(KINDS).map(([kind, { perMinute: most = perMinute }]) => [
      kind,
      Math.max(1, Math.round(minutes * Math.min(perMinute, most))),
    ]),
  );

/** The most faults any kind of `lane` is to reach: its kinds come in rounds, one of each. */
const laneQuota = (lane, quota) => Math.max(...lane.kinds.map((kind) => quota[kind]));

const mean = ([min, max]) => (min + max) / 2;
const tenths = (value) => Math.round(value * 10) / 10;

/** The mean pause after each of a lane's faults, so that its rounds up to `quota` fit in `seconds`. */
function meanGap(lane, quota, seconds) {
  const busy = lane.kinds.reduce((sum, kind) => sum + mean(KINDS[kind].seconds) + KINDS[kind].cost, 0);
  return Math.max(MIN_GAP_SECONDS, ((seconds * PACE) / laneQuota(lane, quota) - busy) / lane.kinds.length);
}

/**
 * A lane's endless schedule, drawn from `rng` alone: rounds in which each of its kinds comes once, in
 * a random order, each with a target instance, duration and pause after it (its share of the mean pause,
 * 0.5–1.5, see `pausesAfter`). So the kinds stay within one of each other, a short run meets every
 * kind, and a seed always gives the same faults in the same order (how many of them a run reaches
 * depends on the time they take).
 */
export function* laneSchedule(rng, lane, instances) {
  for (;;) {
    for (const kind of rng.shuffle(lane.kinds)) {
      yield {
        kind,
        lane: lane.name,
        target: rng.pick(instances),
        // A broker-side drop hits one instance's connection or every one of the system's.
        everyInstance: rng.chance(0.5),
        latencyMs: rng.int(100, 1_000),
        seconds: tenths(rng.between(...KINDS[kind].seconds)),
        gapShare: rng.between(0.5, 1.5),
      };
    }
  }
}

/**
 * The pauses of a lane, from what its faults have cost so far on this machine rather than from the
 * estimates alone: on a slow machine (two busy cores: `pg_ctl` and `rabbitmqctl` take seconds) the lane
 * shortens its pauses to reach its quota in time, down to `MIN_GAP_SECONDS`; once it has it, it keeps
 * the planned pace. `spent(ms)` records what one fault took, besides its pause.
 */
function pausesAfter(lane, { quota, seconds, deadline, tally }) {
  const planned = meanGap(lane, quota, seconds);
  const estimate = lane.kinds.reduce((sum, kind) => sum + mean(KINDS[kind].seconds) + KINDS[kind].cost, 0);
  let spentMs = 0;
  let faults = 0;
  return {
    spent(ms) {
      spentMs += ms;
      faults += 1;
    },
    /** The pause after a fault, `share` of the mean pause that keeps the lane on its pace. */
    next(share) {
      const left = lane.kinds.reduce((sum, kind) => sum + Math.max(0, quota[kind] - tally[kind].injected), 0);
      if (left === 0) return Math.max(MIN_GAP_SECONDS, tenths(planned * share));
      const perFault = faults > 0 ? spentMs / faults / 1_000 : estimate / lane.kinds.length;
      const secondsLeft = (PACE * (deadline - Date.now())) / 1_000;
      const gap = Math.min(planned, (secondsLeft - left * perFault) / left);
      return Math.max(MIN_GAP_SECONDS, tenths(gap * share));
    },
  };
}

export function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs one lane: each fault injected, held for its time, undone, then the pause (paced to reach `quota`
 * of each kind in the `seconds` before `deadline`, see `pausesAfter`). Until `deadline`,
 * and after it until every kind of the lane has reached `quota` (but never past `lastCall`). Never
 * throws: a fault that goes wrong is an error in `errors`, and the lane undoes its own kinds and goes
 * on. `tally[kind]` counts `injected` and the milliseconds spent injecting and undoing (`busyMs`);
 * `timeline` gets each fault's `{ kind, target, from, to }` (epoch ms: from before its injection began
 * until it was undone, a stopped instance until it is ready again), for checks that excuse what a fault
 * could cause.
 */
export async function runLane({
  lane,
  schedule,
  context,
  seconds,
  deadline,
  lastCall,
  quota,
  signal,
  say,
  tally,
  errors,
  timeline = [],
}) {
  const short = () => lane.kinds.some((kind) => tally[kind].injected < quota[kind]);
  const pauses = pausesAfter(lane, { quota, seconds, deadline, tally });
  for (let n = 1; !signal?.aborted && (Date.now() < deadline || (short() && Date.now() < lastCall)); n += 1) {
    const plan = schedule.next().value;
    const label = `${lane.name} ${n}: ${plan.kind}`;
    // Recorded before it begins: one that goes wrong may have been in effect all the same.
    const span = { kind: plan.kind, target: plan.target, from: Date.now(), to: undefined };
    timeline.push(span);
    try {
      const injecting = span.from;
      const { description, restore, target } = await injectFault(plan, context);
      // An instance still starting again is never stopped: another one may have been.
      span.target = target ?? plan.target;
      const injected = Date.now();
      tally[plan.kind].injected += 1;
      say(`${label}: ${description}${plan.seconds > 0 ? `, for ${plan.seconds} s` : ''}`);
      await pause(plan.seconds * 1_000, signal);
      const undoing = Date.now();
      const { ready } = (await restore()) ?? {};
      span.to = Date.now();
      tally[plan.kind].busyMs += injected - injecting + (span.to - undoing);
      // A stopped instance is started again in the background: it is down until it is ready.
      ready?.then(() => {
        span.to = Date.now();
      });
    } catch (error) {
      errors.push(`${plan.kind}: ${error.message}`);
      say(`${label} went wrong (${error.message}); undoing the ${lane.name} lane's faults`);
      errors.push(...(await lane.recover(context).catch((e) => [`${lane.name} lane: ${e.message}`])));
      span.to = Date.now();
    }
    pauses.spent(Date.now() - span.from);
    await pause(pauses.next(plan.gapShare) * 1_000, signal);
  }
}
