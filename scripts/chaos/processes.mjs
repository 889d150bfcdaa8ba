// Keeping the system's processes up during a campaign: restarting one a fault stopped, and noticing
// one that stopped by itself (a crash is a finding, and the campaign restarts it to go on).

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const nameOf = (process) => `${process.service}#${process.instance}`;

/** How long a process that runs may take to be ready before it is taken for hung: far longer than any outage. */
const HUNG_AFTER_MS = 300_000;

/** How often a start that takes long is reported, with what its readiness says. */
const REPORT_EVERY_MS = 30_000;

/** What `process`'s readiness answers: ready, its body (which check fails), or that it does not listen yet. */
async function readiness(process) {
  try {
    const response = await fetch(`${process.url}/health/ready`);
    return { ready: response.ok, says: `${response.status} ${(await response.text()).slice(0, 200)}` };
  } catch {
    return { ready: false, says: 'not listening yet (starting)' };
  }
}

/**
 * Resolves once `process` answers ready; rejects if it exits first, or after `timeoutMs`. Every 30 s,
 * `log` hears what keeps it.
 */
async function untilReady(process, timeoutMs, log) {
  const started = Date.now();
  let reported = started;
  while (process.running && Date.now() < started + timeoutMs) {
    const { ready, says } = await readiness(process);
    if (ready) return;
    if (Date.now() - reported >= REPORT_EVERY_MS) {
      reported = Date.now();
      const last = process.lines?.at(-1)?.slice(0, 300);
      log?.(
        `${nameOf(process)}: not ready after ${Math.round((reported - started) / 1_000)} s: ${says}` +
          (last ? `; its last log line: ${last}` : ''),
      );
    }
    await sleep(200);
  }
  throw new Error(process.running ? `not ready within ${timeoutMs} ms` : 'exited before it was ready');
}

/**
 * Starts `process` until it is ready, as an orchestrator would restart it. One that exits before it is
 * ready is started again, for up to `timeoutMs` (a service should never exit for a dependency that is
 * only away: each such exit is logged through `log`). One that runs but is not ready yet (its start-up
 * waits for PostgreSQL or RabbitMQ, which the campaign stops every few seconds) is waited for, not
 * killed: a kill would only make it start over, and wait the same.
 */
export async function startProcess(process, { timeoutMs = 90_000, log } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    if (process.running) return;
    try {
      await process.start();
      return;
    } catch (notReady) {
      const error = process.running ? await untilReady(process, HUNG_AFTER_MS, log).catch((late) => late) : notReady;
      if (error === undefined) return;
      // A process that is up but hung when we give up would be started twice.
      await process.kill('SIGKILL');
      log?.(`${nameOf(process)}: start ${attempt} failed (${error.message.split('\n')[0]})`);
      if (Date.now() >= deadline) throw error;
      await sleep(1_000);
    }
  }
}

/** How much of a crashed process's log (with `logs: 'pipe'`) to show. */
const LAST_LINES = 8;

/**
 * Every second, looks for a process that is not running although no fault holds it (`state.held`),
 * records it in `exits`, logs how it ended (and its last log lines) and starts it again; no longer
 * once `signal` is aborted (e.g. a Ctrl-C, which stops the processes too).
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
      restarting.add(name);
      // kill() of a process that is gone resolves with how it ended.
      process
        .kill()
        .then((how) => {
          const last = process.lines.slice(-LAST_LINES);
          log(
            `${name} exited (${how?.signal ?? `code ${how?.code}`}) without being asked to; ` +
              `starting it again${last.length ? `. Its last log lines:\n${last.join('\n')}` : ''}`,
          );
          return startProcess(process, { log });
        })
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
