import { BURST_SIZES, burstRounds, burstWorkloads } from '../bursts.mjs';

/** `bursts`: 50, 100 and 200 requests at once on an idle system (bench/bursts.mjs). */
export async function burstsPart({ system, pools, fixture, phase, rows, target, saved }) {
  saved.bursts = await phase(
    `bursts: ${BURST_SIZES.join(', ')} requests at once through the gateway, idle before each`,
    async () => burstRounds(await burstWorkloads(system, pools, fixture)),
  );
  const { bursts } = saved;
  for (const { workload, short, size, rounds } of bursts) {
    const listed = (figure) => rounds.map(figure).join(' / ');
    rows.push({
      scenario: `${workload}: ${size} at once on an idle system (${rounds.length} rounds)`,
      via: 'gateway',
      connections: size,
      ok: listed((r) => r.ok),
      refused: listed((r) => r.refused),
      p99Ms: listed((r) => r.admitted.p99),
    });
    target(
      `bursts: ${short} × ${size} at once on an idle system: 0 refused, every answer 2xx`,
      `refused ${listed((r) => r.refused)}; 2xx ${listed((r) => r.ok)}; p50 ${listed((r) => r.admitted.p50)} ms; p99 ${listed((r) => r.admitted.p99)} ms`,
      rounds.every((r) => r.refused === 0 && r.ok === size),
    );
  }
}
