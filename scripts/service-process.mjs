// One service instance as a child process: started, waited for until it reports ready, signalled, and started
// again on the same port, as an orchestrator would restart it. Used by `npm start` (scripts/start.mjs) and by the
// system the tests and the benchmark start (scripts/system.mjs).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { serviceArgs } from './services.mjs';

async function waitUntilReady(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
}

/**
 * One service instance as a child process that can be signalled and started again on the same port,
 * database and queue, as an orchestrator would restart it.
 */
export class ServiceProcess {
  #child;
  #exited;

  constructor({ service, instance, port, metricsPort, env, logs, inspectPort, readyWithinMs, ownGroup = false }) {
    this.service = service;
    this.instance = instance;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.metricsUrl = `http://127.0.0.1:${metricsPort}`;
    this.env = env;
    this.logs = logs;
    this.inspectPort = inspectPort;
    this.readyWithinMs = readyWithinMs;
    this.ownGroup = ownGroup;
    /** With `logs: 'pipe'`, every line the process wrote to stdout, across restarts. */
    this.lines = [];
    /** With `logs: 'pipe'`, every line it wrote to stderr (shown as it comes, too), across restarts. */
    this.errorLines = [];
  }

  get pid() {
    return this.#child?.pid;
  }

  get running() {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Spawns the process and resolves once it reports ready. */
  async start() {
    this.#child = spawn(process.execPath, serviceArgs(this.service), {
      stdio: ['ignore', this.logs, this.logs === 'pipe' ? 'pipe' : 'inherit'],
      env: this.env,
      // Out of the terminal's process group: a Ctrl-C reaches the supervisor alone, which stops each process once.
      detached: this.ownGroup,
    });
    if (this.logs === 'pipe') {
      createInterface({ input: this.#child.stdout }).on('line', (line) => this.lines.push(line));
      createInterface({ input: this.#child.stderr }).on('line', (line) => {
        this.errorLines.push(line);
        process.stderr.write(`${line}\n`);
      });
    }
    // 'close' rather than 'exit': by then every line the process wrote has been read.
    this.#exited = new Promise((done) => this.#child.once('close', (code, signal) => done({ code, signal })));
    await Promise.race([
      waitUntilReady(this.url, this.readyWithinMs),
      this.#exited.then(({ code, signal }) => {
        throw new Error(`${this.service}#${this.instance} exited (${signal ?? code}) before it was ready`);
      }),
    ]);
  }

  /** Resolves with how the process ended, once it has: the current run's end. */
  exited() {
    return this.#exited;
  }

  /** Sends `signal` and resolves with how the process ended. */
  async kill(signal = 'SIGTERM') {
    if (!this.running) return this.#exited;
    this.#child.kill(signal);
    return this.#exited;
  }

  async restart() {
    await this.kill('SIGTERM');
    await this.start();
  }
}
