// HAProxy in front of the gateway as `npm start` runs it where installed (scripts/front.mjs), started for the
// bench's overload part, which measures it beside the gateway alone and the admitting proxy
// (bench/parts/overload.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FRONT_DEFAULTS, frontConfig, HAPROXY } from '../../scripts/front.mjs';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts HAProxy in the foreground (-db) with `frontConfig` and `settings` (`maxconn`, `queueMs`,
 * `queueLimit`, FRONT_DEFAULTS by default) before the gateway at `upstream`, and resolves once it answers on `port` (any
 * answer: it comes from the gateway). `stop` ends it and resolves once it has exited; it is ended as well if
 * this process exits first.
 */
export async function startHaproxyFront(port, upstream, settings = FRONT_DEFAULTS) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, frontConfig({ port, gateway: upstream, settings }));
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  // What it says (its notices at start, an alert when the configuration fails), kept for the error it would make.
  let said = '';
  child.stderr.on('data', (chunk) => (said = `${said}${chunk}`.slice(-4000)));
  let gone;
  const exited = new Promise((resolve) => {
    // `close` once its stderr has been read to the end; `error` when it could not start (not installed).
    child.once('close', (code) => resolve((gone ??= new Error(`${HAPROXY} exited with ${code}: ${said.trim()}`))));
    child.once('error', (error) => resolve((gone ??= error)));
  });
  const kill = () => child.kill('SIGTERM');
  process.once('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (!gone) kill();
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let answered = false; !answered;) {
      if (gone) throw gone;
      answered = await fetch(`${url}/`).then(
        (response) => response.arrayBuffer().then(() => true),
        () => pause(50).then(() => false),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid, stop };
}
