// `npm start`'s supervisor: starts every service instance (scripts/service-process.mjs) and the front, restarts
// an instance that exits unasked, rolls a restart through every instance when `npm run restart` asks
// (scripts/restart.mjs, over a Unix socket), and stops everything on SIGINT or SIGTERM.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** Where the supervisor of the system moved by `portOffset` takes requests for a rolling restart. */
export const controlSocket = (portOffset) => resolve(`.run/start-${portOffset}.sock`);

/** The pause before restarting an instance that exited unasked for the `count`th time in a row: 1 s doubling to 30 s. */
const backoffMs = (count) => Math.min(1_000 * 2 ** count, 30_000);

/**
 * Runs `processes` (each a ServiceProcess) and `front` ({ command, args }, HAProxy, or none) until SIGINT or SIGTERM,
 * taking rolling restarts on `socket`; calls `started` once every process is ready. A process that cannot become
 * ready at the first start stops everything (a setting or a port is wrong: restarting would not help).
 */
export async function supervise({ processes, front, socket, started }) {
  const restarting = new Set();
  let stopping = false;
  const frontProcess =
    front && spawn(front.command, front.args, { stdio: ['ignore', 'inherit', 'inherit'], detached: true });

  const stopAll = async (code) => {
    if (stopping) return;
    stopping = true;
    control.close();
    frontProcess?.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void stopAll(0));
  frontProcess?.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`start: HAProxy exited (${signal ?? code}): stopping everything`);
    void stopAll(1);
  });

  /** Restarts `p` whenever it exits without having been asked to, after a pause that grows while it keeps exiting. */
  const watch = async (p) => {
    let inARow = 0;
    for (;;) {
      const { code, signal } = await p.exited();
      if (stopping) return;
      if (restarting.has(p)) {
        await waitWhile(() => restarting.has(p));
        continue;
      }
      const pause = backoffMs(inARow++);
      console.error(
        `start: ${p.service}#${p.instance} exited (${signal ?? code}) unasked: starting it again in ${pause} ms`,
      );
      await new Promise((done) => setTimeout(done, pause));
      if (stopping) return;
      await p.start().then(
        () => (inARow = 0),
        (error) => console.error(`start: ${error.message}`),
      );
    }
  };

  /** Each instance in turn: stopped (SIGTERM, draining what it took), started again, and waited for until ready. */
  const rollingRestart = async (report) => {
    for (const p of processes) {
      if (stopping) throw new Error('the system is stopping');
      report(`restarting ${p.service}#${p.instance}`);
      const began = performance.now();
      restarting.add(p);
      try {
        await p.restart();
      } finally {
        restarting.delete(p);
      }
      report(`${p.service}#${p.instance} is ready again after ${((performance.now() - began) / 1000).toFixed(1)} s`);
    }
  };

  let rolling = false;
  const control = createServer((connection) => {
    createInterface({ input: connection }).once('line', (line) => {
      const report = (message) => connection.write(`${message}\n`);
      if (line.trim() !== 'restart') return void connection.end('failed: unknown request\n');
      if (rolling) return void connection.end('failed: a restart is already under way\n');
      rolling = true;
      console.log('start: rolling restart of every instance');
      rollingRestart(report)
        .then(
          () => connection.end('done\n'),
          (error) => connection.end(`failed: ${error.message}\n`),
        )
        .finally(() => {
          rolling = false;
        });
    });
    connection.on('error', () => undefined);
  });
  mkdirSync(resolve(socket, '..'), { recursive: true });
  rmSync(socket, { force: true });
  control.listen(socket);

  try {
    await Promise.all(processes.map((p) => p.start()));
  } catch (error) {
    console.error(`start: ${error.message}: stopping everything`);
    return stopAll(1);
  }
  for (const p of processes) void watch(p);
  started();
}

async function waitWhile(condition) {
  while (condition()) await new Promise((done) => setTimeout(done, 100));
}
