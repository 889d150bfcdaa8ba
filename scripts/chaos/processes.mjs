// Keeping the system's processes up during a campaign: restarting one a fault stopped, and noticing
// one that stopped by itself (a crash is a finding, and the campaign restarts it to go on).

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const nameOf = (process) => `${process.service}#${process.instance}`;

/** Starts `process` until it is ready; a start can fail while a server it needs is still coming back. */
export async function startProcess(process, { attempts = 4 } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    if (process.running) return;
    try {
      await process.start();
      return;
    } catch (error) {
      // A process that is up but not yet ready when start() gives up would be started twice.
      await process.kill('SIGKILL');
      if (attempt >= attempts) throw error;
      await sleep(2_000);
    }
  }
}

/**
 * Every second, looks for a process that is not running although no fault holds it (`state.held`),
 * records it in `exits` and starts it again; no longer once `signal` is aborted (e.g. a Ctrl-C, which
 * stops the processes too).
 */
export function guardProcesses({ system, state, signal, log }) {
  const exits = [];
  const restarting = new Set();
  const timer = setInterval(() => {
    if (signal?.aborted) return;
    for (const process of system.processes) {
      const name = nameOf(process);
      if (process.running || state.held.has(name) || restarting.has(name)) continue;
      exits.push(name);
      log(`${name} exited without being asked to; starting it again`);
      restarting.add(name);
      startProcess(process)
        .catch((error) => log(`${name} did not start again: ${error.message}`))
        .finally(() => restarting.delete(name));
    }
  }, 1_000);
  return {
    exits,
    async stop() {
      clearInterval(timer);
      while (restarting.size > 0) await sleep(200);
    },
  };
}
