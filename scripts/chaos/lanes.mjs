// The campaign's lanes: independent sequences of faults that run at the same time, each drawn from a
// seeded stream of its own and paced so that every kind reaches its quota within the requested time.
import { injectFault, restoreHeld, restoreHosts, restorePostgres, restoreProxies, restoreRabbitmq } from './faults.mjs';
import { restorePush } from './push.mjs';

/**
 * Per kind: how long it lasts (seconds, drawn in this range; 0 for a fault that is over at once) and
 * roughly what injecting and undoing it costs besides, as the campaigns' fault tables measure it on
 * a 2-CPU machine: pg_ctl stop + start ~0.6 s (more after an immediate stop: recovery), rabbitmqctl
 * stop_app + start_app ~3 s, one rabbitmqctl eval ~1 s, a kill ~2 s (its restart goes on in the
 * background, but a kill waits for the service's other instance to be ready first). The pacing leaves
 * the rest to the gaps.
 */
export const KINDS = {
  'postgres-stop-fast': { seconds: [0.5, 2], cost: 0.6 },
  'postgres-stop-immediate': { seconds: [0.5, 2], cost: 0.8 },
  'rabbitmq-stop-app': { seconds: [0.5, 3], cost: 3 },
  'rabbitmq-drop-connections': { seconds: [0, 0], cost: 1 },
  'instance-kill': { seconds: [0.5, 3], cost: 2 },
  // A graceful stop takes up to the drain (3 s) before the instance is down.
  'instance-stop': { seconds: [0.5, 3], cost: 4 },
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

/** How many faults of each kind a campaign of `minutes` injects at least: one, even in a short one. */
export const quotaFor = (minutes, perMinute = PER_KIND_PER_MINUTE) => Math.max(1, Math.round(minutes * perMinute));

const mean = ([min, max]) => (min + max) / 2;
const tenths = (value) => Math.round(value * 10) / 10;

/** The mean pause after each of a lane's faults, so that `quota` rounds of its kinds fit in `seconds`. */
export function meanGap(lane, quota, seconds) {
  const busy = lane.kinds.reduce((sum, kind) => sum + mean(KINDS[kind].seconds) + KINDS[kind].cost, 0);
  return Math.max(MIN_GAP_SECONDS, ((seconds * PACE) / quota - busy) / lane.kinds.length);
}

/**
 * A lane's endless schedule, drawn from `rng` alone: rounds in which each of its kinds comes once, in
 * a random order, each with a target instance, duration and pause after it. So the kinds stay within
 * one of each other, a short run meets every kind, and a seed always gives the same faults in the
 * same order (how many of them a run reaches depends on the time they take).
 */
export function* laneSchedule(rng, lane, instances, { quota, seconds }) {
  const gap = meanGap(lane, quota, seconds);
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
        gapSeconds: Math.max(MIN_GAP_SECONDS, tenths(gap * rng.between(0.5, 1.5))),
      };
    }
  }
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
 * Runs one lane: each fault injected, held for its time, undone, then the pause. Until `deadline`,
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
  deadline,
  lastCall,
  quota,
  signal,
  say,
  tally,
  errors,
  timeline = [],
}) {
  const short = () => lane.kinds.some((kind) => tally[kind].injected < quota);
  for (let n = 1; !signal?.aborted && (Date.now() < deadline || (short() && Date.now() < lastCall)); n += 1) {
    const plan = schedule.next().value;
    const label = `${lane.name} ${n}: ${plan.kind}`;
    // Recorded before it begins: one that goes wrong may have been in effect all the same.
    const span = { kind: plan.kind, target: plan.target, from: Date.now(), to: undefined };
    timeline.push(span);
    try {
      const injecting = span.from;
      const { description, restore } = await injectFault(plan, context);
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
    await pause(plan.gapSeconds * 1_000, signal);
  }
}
