// CPU time each part of the system spent, from /proc (Linux): the service processes, and the
// PostgreSQL and RabbitMQ servers on this machine (all their processes), in milliseconds.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of `pid` in ms, or 0 when it is gone. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

function serverOf(pid) {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (name.startsWith('postgres')) return 'postgres';
    if (name.startsWith('beam')) return 'rabbitmq';
  } catch {
    // gone meanwhile
  }
  return undefined;
}

/** `comments#0`: a process of the system by service and instance, in every table of the bench. */
export const processName = (serviceProcess) => `${serviceProcess.service}#${serviceProcess.instance}`;

/** `{ 'comments#0': ms, …, postgres: ms, rabbitmq: ms }` so far. */
export function cpuSample(system) {
  const sample = Object.fromEntries(system.processes.map((p) => [processName(p), cpuMs(p.pid)]));
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const server = serverOf(pid);
    if (server) sample[server] = (sample[server] ?? 0) + cpuMs(pid);
  }
  return sample;
}

/** CPU ms per unit of work between two samples, by part, with the sum; the load generator is this process. */
export function cpuPer(units, before, after, ownCpu) {
  const parts = Object.fromEntries(Object.keys(after).map((part) => [part, +((after[part] - (before[part] ?? 0)) / units).toFixed(2)]));
  parts['load generator'] = +((ownCpu.user + ownCpu.system) / 1000 / units).toFixed(2);
  parts.total = +Object.values(parts).reduce((sum, ms) => sum + ms, 0).toFixed(2);
  return parts;
}
