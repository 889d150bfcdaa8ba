import { referenceComparison } from '../reference-phase.mjs';
import { PORT_OFFSET } from './context.mjs';

// The reference, and a bare proxy in front of each of the five services from 3086 down: 3082 – 3086 are
// no other part's (the system's inspectors end at 3080, the bursts' front is 3087).
const REFERENCE_PORTS = { reference: 3098 + PORT_OFFSET, proxies: 3086 + PORT_OFFSET };

/** `reference`: every public read against the same work in plain Fastify (bench/reference-phase.mjs). */
export async function referencePart({ system, scenarios, config, phase, rows, target, targets, saved, chosenReads }) {
  // The same SQL in plain Fastify (bench/reference/) beside the service, directly and through the gateway.
  // The gateway without admission control here: it is compared with a bare proxy, which has none, at 100
  // connections, beyond the limit admission control keeps to (the overload part measures it).
  const gateways = system.processes.filter((p) => p.service === 'gateway');
  const restartGateways = (env) => Promise.all(gateways.map((p) => ((p.env = env(p.env)), p.restart())));
  await restartGateways((env) => ({ ...env, ADMISSION_ENABLED: 'false' }));
  try {
    saved.reference = await phase(
      `the same work in plain Fastify, ${config.connections} connections, ${config.referenceSeconds} s a measurement`,
      () =>
        referenceComparison({
          system,
          scenarios: chosenReads(scenarios),
          ports: REFERENCE_PORTS,
          connections: config.connections,
          durationSeconds: config.referenceSeconds,
        }),
    );
  } finally {
    await restartGateways(({ ADMISSION_ENABLED: _off, ...env }) => env);
  }
  const { reference } = saved;
  rows.push(...reference.rows);
  targets.push(...reference.targets);
  const gatewayCpu = Object.entries(reference.cpu).map(([name, byVia]) => ({ name, ms: byVia.gateway['gateway#0'] }));
  const costliest = gatewayCpu.reduce((most, read) => (read.ms > most.ms ? read : most));
  target(
    `gateway: ≤ 0.25 ms CPU per proxied request (every read, ${config.connections} connections)`,
    `at most ${costliest.ms} ms (${costliest.name}); ${gatewayCpu.map((read) => read.ms).join(', ')}`,
    costliest.ms <= 0.25,
  );
}
