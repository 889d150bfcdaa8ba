// Resident memory of each process of the system, from /proc (Linux), as the processes left it and after
// a full garbage collection. Until V8 collects, RSS holds garbage of the last load as well as what is
// live, so it swings by tens of MB between two samples of the same process; after a forced collection it
// shows what the process keeps, which is what growth over a soak is about.
import { readFileSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { processName } from './cpu.mjs';

/** VmRSS of `pid` in MB, or null when the process is gone. */
export function rssMb(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? +(Number(match[1]) / 1024).toFixed(1) : null;
  } catch {
    return null;
  }
}

/** The inspector's WebSocket address, once SIGUSR1 has opened it. */
async function inspectorUrl(port) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const targets = await fetch(`http://127.0.0.1:${port}/json/list`).then(
      (r) => r.json(),
      () => undefined,
    );
    if (targets?.[0]?.webSocketDebuggerUrl) return targets[0].webSocketDebuggerUrl;
    await pause(50);
  }
  throw new Error(`no inspector on port ${port}`);
}

/** Asks V8 for a full collection through the inspector (the system started with `inspect`). */
async function collectGarbage(serviceProcess) {
  process.kill(serviceProcess.pid, 'SIGUSR1'); // opens the inspector; a second signal changes nothing
  const socket = new WebSocket(await inspectorUrl(serviceProcess.inspectPort));
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', () =>
      socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })),
    );
    socket.addEventListener('message', (message) => {
      if (JSON.parse(message.data).id === 1) resolve();
    });
    socket.addEventListener('error', () => reject(new Error(`inspector of ${serviceProcess.service} failed`)));
  });
  socket.close();
}

/** `{ asLeft: { 'content#0': MB, … }, afterGc: { … } }` for every process of the system. */
export async function sampleRss(system) {
  const asLeft = Object.fromEntries(system.processes.map((p) => [processName(p), rssMb(p.pid)]));
  for (const p of system.processes) await collectGarbage(p);
  await pause(500); // freed pages go back to the system in the background
  const afterGc = Object.fromEntries(system.processes.map((p) => [processName(p), rssMb(p.pid)]));
  return { asLeft, afterGc };
}
