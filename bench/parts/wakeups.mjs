import { streamedMentionLatency, tokenSigner } from '../streams.mjs';
import { NAME } from './context.mjs';

/** `wakeups`: BENCH_WAKEUP_MENTIONS mentions at BENCH_WAKEUP_RATE, each timed to its stream. */
export async function wakeupsPart({ system, pools, fixture, config, phase, rows, target, saved }) {
  // A low rate for long: any mention whose wake-up was lost waits for a relay's poll (1 s) and shows in the tail.
  const seconds = config.wakeupMentions / config.wakeupRate;
  saved.wakeups = await phase(
    `wake-ups: ${config.wakeupMentions.toLocaleString('en')} mentions at ${config.wakeupRate}/s, each timed to its stream`,
    async () => {
      const { cpu: _cpu, ...figures } = await streamedMentionLatency(
        system,
        pools,
        fixture,
        tokenSigner(NAME, fixture.viewer.token),
        {
          database: NAME,
          streams: config.streamsMentioned,
          mentioned: config.streamsMentioned,
          rate: config.wakeupRate,
          seconds,
        },
      );
      return figures;
    },
  );
  const { wakeups } = saved;
  rows.push({
    scenario: `POST comment → event: notification, ${wakeups.sent} at ${config.wakeupRate}/s`,
    via: 'gateway, end to end',
    connections: wakeups.openStreams,
    ...wakeups,
  });
  target(
    `wake-ups: ${wakeups.sent} mentions at ${config.wakeupRate}/s → event: notification p99.9 < 100 ms, max < 500 ms, none missing or doubled`,
    `p50 ${wakeups.p50Ms} ms, p99 ${wakeups.p99Ms} ms, p99.9 ${wakeups.p999Ms} ms, max ` +
      `${wakeups.maxMs} ms; ${wakeups.errors} missing, ${wakeups.duplicates} doubled`,
    wakeups.p999Ms < 100 &&
      wakeups.maxMs < 500 &&
      wakeups.errors === 0 &&
      wakeups.duplicates === 0 &&
      wakeups.sent >= 10_000,
  );
}
