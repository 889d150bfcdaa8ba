import { openLoop } from '../open-loop.mjs';

/** `open-loop`: every public GET in turn through the gateway at a fixed rate (bench/open-loop.mjs). */
export async function openLoopPart({ system, scenarios, config, phase, rows, target }) {
  const { urlOf } = system;
  const mixed = await phase(
    `open loop: every GET in turn through the gateway, ${config.openLoopRate} req/s for ${config.openLoopSeconds} s`,
    () =>
      openLoop(
        scenarios.map((s) => ({ url: `${urlOf('gateway')}${s.path}`, headers: s.headers })),
        { rate: config.openLoopRate, seconds: config.openLoopSeconds },
      ),
  );
  rows.push({
    scenario: `every GET in turn (${scenarios.length}), open loop at ${config.openLoopRate} req/s`,
    via: 'gateway',
    connections: null,
    ...mixed,
  });
  target(
    `open loop: every GET in turn through the gateway at ${config.openLoopRate} req/s for ${config.openLoopSeconds} s: p99 < 20 ms, no errors`,
    `p50 ${mixed.p50Ms} ms, p99 ${mixed.p99Ms} ms, max ${mixed.maxMs} ms, sent at ${mixed.requestsPerSecond}/s, ${mixed.errors} errors`,
    mixed.p99Ms < 20 && mixed.errors === 0 && mixed.requestsPerSecond >= 0.95 * config.openLoopRate,
  );
}
