import { existsSync } from 'node:fs';
import { BURST_SIZES, burstRounds, burstWorkloads } from '../bursts.mjs';
import { startFront } from '../reference-phase.mjs';
import { HAPROXY } from '../../scripts/front.mjs';
import { PORT_OFFSET } from './context.mjs';

const FRONT_PORT = 3087 + PORT_OFFSET;

/**
 * `bursts`: 50, 100 and 200 requests at once on an idle system (bench/bursts.mjs), through the gateway, then
 * through HAProxy before it as `npm start` runs it, where HAProxy is installed.
 */
export async function burstsPart({ system, pools, fixture, phase, rows, target, saved }) {
  saved.bursts = await phase(
    `bursts: ${BURST_SIZES.join(', ')} requests at once through the gateway, idle before each`,
    async () => burstRounds(await burstWorkloads(system.urlOf('gateway'), pools, fixture)),
  );
  const results = saved.bursts.map((result) => ({ ...result, via: 'gateway' }));
  if (existsSync(HAPROXY)) {
    // With npm start's limits.
    const front = await startFront(FRONT_PORT, system.urlOf('gateway'));
    try {
      saved.burstsViaFront = await phase(
        `bursts: the same through HAProxy before the gateway, as npm start runs it`,
        async () => burstRounds(await burstWorkloads(front.url, pools, fixture), 'haproxy'),
      );
    } finally {
      front.stop();
    }
    results.push(...saved.burstsViaFront.map((result) => ({ ...result, via: 'haproxy → gateway' })));
  } else console.log(`  bursts: not through HAProxy: ${HAPROXY} is missing (node scripts/setup.mjs --haproxy)`);
  for (const { workload, short, size, rounds, via } of results) {
    const listed = (figure) => rounds.map(figure).join(' / ');
    rows.push({
      scenario: `${workload}: ${size} at once on an idle system (${rounds.length} rounds)`,
      via,
      connections: size,
      ok: listed((r) => r.ok),
      refused: listed((r) => r.refused),
      p99Ms: listed((r) => r.admitted.p99),
    });
    target(
      `bursts: ${short} × ${size} at once on an idle system via ${via}: 0 refused, every answer 2xx`,
      `refused ${listed((r) => r.refused)}; 2xx ${listed((r) => r.ok)}; p50 ${listed((r) => r.admitted.p50)} ms; p99 ${listed((r) => r.admitted.p99)} ms`,
      rounds.every((r) => r.refused === 0 && r.ok === size),
    );
  }
}
