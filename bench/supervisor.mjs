// `npm start`'s supervisor under load: the system as `npm start` runs it (scripts/start.mjs and its supervisor,
// every service at its default log level, the logs written to one file as a terminal or a redirect would
// take them), on ports of its own, a database and an exchange of its own; requests through its gateway,
// and the CPU the supervisor process spent per request, beside the services'. The supervisor must stay off
// the request path: the services write their lines themselves, it relays nothing.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dropDatabase, removeExchangeFamily } from '@recipes/testing/cleanup';
import { services } from '../scripts/services.mjs';
import { cpuPer, cpuSample } from './cpu.mjs';
import { measure } from './measure.mjs';
import { register } from './seed.mjs';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each child of `pid` as `{ pid, name }`, from /proc. */
function childrenOf(pid) {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((child) => {
      try {
        const [name, rest] = readFileSync(`/proc/${child}/stat`, 'utf8').split(') ');
        return Number(rest.split(' ')[1]) === pid
          ? [{ pid: Number(child), name: name.slice(name.indexOf('(') + 1) }]
          : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/**
 * The supervisor and the services it runs, by part; a shell between the supervisor and a service, if any, counts
 * as the supervisor's.
 */
function supervisedProcesses(supervisorPid) {
  const parts = { supervisor: [supervisorPid] };
  for (const child of childrenOf(supervisorPid)) {
    const [service] = child.name === 'sh' ? childrenOf(child.pid) : [child];
    if (child.name === 'sh') parts.supervisor.push(child.pid);
    const name =
      service && /services\/([^/]+)\/dist\/server\.js/.exec(readFileSync(`/proc/${service.pid}/cmdline`, 'utf8'))?.[1];
    if (name) parts[name] = service.pid;
  }
  return parts;
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs scripts/start.mjs with `portOffset`, measures GET /api/users/{id} through its gateway at
 * `connections` for `durationSeconds`, and returns the figures with CPU ms per request of every process.
 */
export async function supervisorCost({
  name,
  portOffset,
  adminDatabaseUrl,
  amqpUrl,
  env,
  connections,
  durationSeconds,
  logFile,
}) {
  const databaseUrl = new URL(adminDatabaseUrl);
  databaseUrl.pathname = `/${name}`;
  const exchange = `recipes.${name}`;
  const cleanUp = async () => {
    await removeExchangeFamily(amqpUrl, exchange);
    await dropDatabase(adminDatabaseUrl, name);
  };
  await cleanUp();
  const log = openSync(logFile, 'w');
  const supervisor = spawn(process.execPath, ['scripts/start.mjs'], {
    env: {
      ...process.env,
      ...env,
      PORT_OFFSET: String(portOffset),
      DATABASE_URL: databaseUrl.toString(),
      AMQP_URL: amqpUrl,
      EVENTS_EXCHANGE: exchange,
    },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise((resolve) => supervisor.once('exit', resolve));
  const urlOf = (name) => `http://127.0.0.1:${services.find((s) => s.name === name).port + portOffset}`;
  const gateway = urlOf('gateway');
  // Every process, not only the gateway: its readiness does not wait for the services behind it.
  const allReady = async () =>
    (
      await Promise.all(
        services.map(({ name }) =>
          fetch(`${urlOf(name)}/health/ready`).then(
            (r) => r.ok,
            () => false,
          ),
        ),
      )
    ).every(Boolean);
  try {
    for (const deadline = Date.now() + 60_000; !(await allReady());) {
      if (supervisor.exitCode !== null)
        throw new Error(`scripts/start.mjs exited with ${supervisor.exitCode}: see ${logFile}`);
      if (Date.now() > deadline) throw new Error(`npm start's system was not ready within 60 s: see ${logFile}`);
      await pause(200);
    }
    const { user } = await register(() => gateway, 'bench_supervised');
    const url = `${gateway}/api/users/${user.id}`;
    await measure({ url, connections, durationSeconds: 1, warmupSeconds: 0 });
    const parts = supervisedProcesses(supervisor.pid);
    const system = { processes: [] };
    const before = cpuSample(system, { extra: parts, database: name });
    const own = process.cpuUsage();
    const figures = await measure({ url, connections, durationSeconds, warmupSeconds: 0 });
    const cpu = cpuPer(
      figures.requests,
      before,
      cpuSample(system, { extra: parts, database: name }),
      process.cpuUsage(own),
    );
    return { ...figures, cpu };
  } finally {
    // The supervisor may exit before its children, and a service still running would declare its queues
    // again after they were removed: the clean-up waits for every process of the system.
    const processes = Object.values(supervisedProcesses(supervisor.pid)).flat();
    supervisor.kill('SIGTERM');
    await Promise.race([exited, pause(10_000)]);
    for (const deadline = Date.now() + 10_000; processes.some(isRunning) && Date.now() < deadline;) await pause(100);
    closeSync(log);
    await cleanUp();
  }
}
