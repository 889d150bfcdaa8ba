// CPU time each part of the system spent, from /proc (Linux): the service processes, and the
// PostgreSQL and RabbitMQ servers on this machine, in milliseconds.
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

/**
 * `postgres` or `rabbitmq` for a process of either server, else undefined. With `database`, PostgreSQL's
 * client backends of other databases (`postgres: 15/main: <user> <database> <host>(<port>) …`) are left
 * out, so that other work on the machine does not count.
 */
function serverOf(pid, database) {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (name.startsWith('beam')) return 'rabbitmq';
    if (!name.startsWith('postgres')) return undefined;
    if (database === undefined) return 'postgres';
    const backend = /^postgres: [^:]+: \S+ (\S+) \S+\(\d+\)/.exec(
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '),
    );
    return backend && backend[1] !== database ? undefined : 'postgres';
  } catch {
    return undefined; // gone meanwhile
  }
}

/** `comments#0`: a process of the system by service and instance, in every table of the bench. */
export const processName = (serviceProcess) => `${serviceProcess.service}#${serviceProcess.instance}`;

/**
 * The CPU ms so far of every process that counts, by pid: the system's, `extra` ones (`{ part: pid }` or `{ part: [pid,
 * …] }`),
 * and those of PostgreSQL (only `database`'s backends, when given) and RabbitMQ. Kept per pid, as
 * PostgreSQL's backends come and go: a sum over the processes alive at each end would lose the CPU of
 * one that exits in between.
 */
export function cpuSample(system, { extra = {}, database } = {}) {
  const parts = new Map(system.processes.map((p) => [String(p.pid), processName(p)]));
  for (const [part, pids] of Object.entries(extra)) for (const pid of [pids].flat()) parts.set(String(pid), part);
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const server = parts.has(pid) ? undefined : serverOf(pid, database);
    if (server) parts.set(pid, server);
  }
  return new Map([...parts].map(([pid, part]) => [pid, { part, ms: cpuMs(pid) }]));
}

/** CPU ms by part between two samples: what each process spent, from 0 for one started since. */
export function cpuSpent(before, after) {
  const parts = {};
  for (const { part } of before.values()) parts[part] = 0;
  for (const [pid, { part, ms }] of after) parts[part] = (parts[part] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  return parts;
}

/** CPU ms per unit of work between two samples, by part, with the sum; the load generator is this process. */
export function cpuPer(units, before, after, ownCpu) {
  const parts = Object.fromEntries(
    Object.entries(cpuSpent(before, after)).map(([part, ms]) => [part, +(ms / units).toFixed(2)]),
  );
  parts['load generator'] = +((ownCpu.user + ownCpu.system) / 1000 / units).toFixed(2);
  parts.total = +Object.values(parts)
    .reduce((sum, ms) => sum + ms, 0)
    .toFixed(2);
  return parts;
}
