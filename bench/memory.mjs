// Resident memory of each process of the system, from /proc (Linux).
import { readFileSync } from 'node:fs';

/** VmRSS of `pid` in MB, or null when the process is gone. */
export function rssMb(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? +(Number(match[1]) / 1024).toFixed(1) : null;
  } catch {
    return null;
  }
}

/** `{ 'content#0': MB, … }` for every process of the system. */
export function sampleRss(system) {
  return Object.fromEntries(system.processes.map((p) => [`${p.service}#${p.instance}`, rssMb(p.pid)]));
}
