// A native front that queues and sheds at the edge: Debian's HAProxy in front of the gateway, measured in the
// overload part beside the gateway alone and the admitting proxy (bench/parts/overload.mjs). A Node process whose
// event loop the load saturates cannot refuse quickly on two cores; HAProxy, one thread in C, holds at most
// `maxconn` requests in flight to the gateway (HTTP/1.1, connections kept and shared), lets the excess wait in its
// queue for up to `queueMs`, and answers 503 at once, as the gateway does (Retry-After: 1, the same problem
// body), to a request that finds more than `queueLimit` already waiting; one that waits too long gets the same 503.
// No logs, no health checks; the event stream is not handled (the overload workloads do not use it).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's package puts it (`node scripts/setup.mjs --haproxy` installs it). */
export const HAPROXY = '/usr/sbin/haproxy';

/**
 * At most 64 requests in flight to the gateway (of the order of its lanes' limits); a request waits up to 100 ms
 * for one of them, and is refused at once when more than 32 are already waiting.
 */
export const HAPROXY_DEFAULTS = { maxconn: 64, queueMs: 100, queueLimit: 32 };

const REFUSAL = `content-type application/problem+json string '{"status":503,"code":"SERVICE_UNAVAILABLE"}' hdr Retry-After 1`;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The configuration: listening on 127.0.0.1:`port`, everything to `upstream` (the gateway's base URL). Neither
 * global nor frontend maxconn is set: HAProxy derives them from the open-file limit, as the load generator opens
 * a socket per request in flight. Timeouts of client and server are long enough for any normal request.
 */
export function haproxyConfig({ port, upstream, maxconn, queueMs, queueLimit }) {
  const { hostname, port: upstreamPort } = new URL(upstream);
  return `global
  nbthread 1

defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 30s
  timeout queue ${queueMs}ms
  # HAProxy's own 503 (a request that waited longer than the queue timeout) as the gateway's.
  http-error status 503 ${REFUSAL}

frontend front
  bind 127.0.0.1:${port}
  http-request return status 503 ${REFUSAL} if { queue(gateway) gt ${queueLimit} }
  default_backend gateway

backend gateway
  http-reuse always
  server gateway ${hostname}:${upstreamPort} maxconn ${maxconn}
`;
}

/**
 * Starts HAProxy in the foreground (-db) with `haproxyConfig` and `settings` (`maxconn`,
 * `queueMs`, `queueLimit`: HAPROXY_DEFAULTS for those not given), and resolves once it answers on `port` (any
 * answer: it comes from the gateway). `stop` ends it and resolves once it has exited; it is ended as well if
 * this process exits first.
 */
export async function startHaproxyFront(port, upstream, settings = HAPROXY_DEFAULTS) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig({ port, upstream, ...HAPROXY_DEFAULTS, ...settings }));
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
