import { supervisorCost } from '../supervisor.mjs';
import { AMQP_URL } from './context.mjs';

/** `npm start`'s system, for the supervisor's cost: its own ports, database and exchange. */
const SUPERVISED = { name: 'recipes_bench_start', portOffset: 1300 };

/** `supervisor`: the CPU of `npm start`'s supervisor per request, on a system of its own (bench/supervisor.mjs). */
export async function supervisorPart({ system, config, phase, rows, target, saved }) {
  saved.supervisorCpu = await phase(
    `npm start’s supervisor: GET /api/users/{id} through its gateway, ${config.connections} connections`,
    () =>
      supervisorCost({
        ...SUPERVISED,
        adminDatabaseUrl: new URL('/postgres', system.databaseUrl).toString(),
        amqpUrl: AMQP_URL,
        env: { RATE_LIMIT_ENABLED: 'false', REGISTER_LIMIT_PER_ADDRESS: '1000000' },
        connections: config.connections,
        durationSeconds: config.durationSeconds,
        logFile: `bench/results/${SUPERVISED.name}.log`,
      }),
  );
  const { cpu, ...figures } = saved.supervisorCpu;
  rows.push({
    scenario: 'GET /api/users/{id}, system run by npm start (logs at info, to a file)',
    via: 'gateway',
    connections: config.connections,
    ...figures,
  });
  target(
    `npm start’s supervisor: ≤ 0.02 ms CPU per request (${config.connections} connections, every service logging at info)`,
    `${cpu.supervisor} ms per request (gateway ${cpu.gateway}, users ${cpu.users}), ${figures.requestsPerSecond} req/s, ${figures.errors} errors`,
    cpu.supervisor <= 0.02 && figures.errors === 0,
  );
}
