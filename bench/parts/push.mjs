import { pushCost } from '../push.mjs';
import { tokenSigner } from '../streams.mjs';
import { NAME, ratio } from './context.mjs';

/** The extra CPU per mentioned comment that one push subscription per recipient may cost, at most. */
const PUSH_CPU_GROWTH = 0.15;

/** `push`: pushes a second through the sender to the local push service, and their CPU beside none (bench/push.mjs). */
export async function pushPart({ system, pools, fixture, config, phase, rows, target, saved }) {
  saved.push = await phase(
    `push: ${config.pushRate} mentioned comments/s for ${config.pushSeconds} s without push subscriptions, then with one per recipient`,
    () =>
      pushCost({
        system,
        pools,
        signToken: tokenSigner(NAME, fixture.viewer.token),
        database: NAME,
        rate: config.pushRate,
        seconds: config.pushSeconds,
        idleSeconds: config.writePathCountSeconds,
      }),
  );
  const { none, withPush, rate } = saved.push;
  rows.push({
    scenario: `POST comment (a mention), open loop at ${rate}/s (${none.sent}), no push subscription`,
    via: 'gateway',
    connections: null,
    sent: none.sent,
    created: none.created,
    cpuMsPerComment: none.systemMs,
  });
  const { cpu: _cpu, systemMs: _systemMs, ...pushed } = withPush;
  rows.push({
    scenario: `POST comment (a mention) → push received, open loop at ${rate}/s (${withPush.sent}), one subscription per recipient`,
    via: 'gateway',
    connections: null,
    ...pushed,
    cpuMsPerComment: withPush.systemMs,
  });
  target(
    `push: CPU per mentioned comment with one push subscription per recipient ≤ ` +
      `${1 + PUSH_CPU_GROWTH} × without (both at ${rate}/s; the system's processes and servers)`,
    `${withPush.systemMs} / ${none.systemMs} ms = ${ratio(withPush.systemMs, none.systemMs)}; ${withPush.pushed} of ${withPush.created} ` +
      `pushed (${withPush.pushesPerSecond}/s, p50 ${withPush.p50Ms} ms, p99 ${withPush.p99Ms} ms), ${withPush.duplicates} twice`,
    withPush.systemMs <= (1 + PUSH_CPU_GROWTH) * none.systemMs &&
      withPush.pushed === withPush.created &&
      withPush.created === withPush.sent &&
      withPush.violations === 0,
  );
}
