// The front (docs/architecture.md §10, "The front"): Debian's HAProxy before the gateway, where it is
// installed. A Node process whose event loop the load saturates cannot refuse quickly, and a client that
// opens a connection for every request in flight floods it with connections. Reads, cheap for the services,
// are what can come faster than the gateway's loop takes them: HAProxy, one thread in C, takes those
// connections, keeps at most `maxconn` reads in flight to the gateway over connections it reuses, lets the
// next wait up to `queueMs`, and answers 503 at once, as the gateway does (Retry-After: 1, a problem body),
// to a read that finds more than `queueLimit` already waiting. Writes cost the services far more than the
// gateway, so their rate stays within what its loop takes, and they go straight on to its own admission
// control, which follows each service's latency: held here as well, they lost a fifth of their goodput past
// capacity. The notification stream goes apart, unlimited: held for hours, it would take a request's place.
// Measured beside the gateway alone in the bench's overload part (bench/README.md, section "Overload").

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeFor, PROBLEM_CONTENT_TYPE } from '../libs/http/dist/problem.js';

/** Where Debian's package puts it (`node scripts/setup.mjs --haproxy` installs it). */
export const HAPROXY = '/usr/sbin/haproxy';

/**
 * At most 256 reads in flight to the gateway, so that a burst of 200 at once goes on to the gateway's waiting
 * room, which serves a burst whole and cuts only a queue that stands; a read waits up to 100 ms for one, and
 * is refused at once when 64 already wait. With 64 in flight the reads past capacity kept a lower p99 (0.6 –
 * 1.7 s at four times against 3.5 s), but a burst of 100 reads would have been refused in part
 * (docs/decisions/0015-haproxy-front-for-reads.md).
 */
export const FRONT_DEFAULTS = { maxconn: 256, queueMs: 100, queueLimit: 64 };

/**
 * What HAProxy answers itself, in the gateway's problem+json (libs/http's problem.ts), with Retry-After on a 503 as
 * the gateway's refusals have.
 */
function answer(status, detail) {
  const body = JSON.stringify({
    type: 'about:blank',
    title: STATUS_CODES[status],
    status,
    code: codeFor(status),
    detail,
  });
  return (
    `status ${status} content-type ${PROBLEM_CONTENT_TYPE} string '${body}'` +
    (status === 503 ? ' hdr Retry-After 1' : '')
  );
}
const AT_CAPACITY = answer(503, 'The service is at capacity, try again shortly');

/**
 * The address HAProxy connects to the gateway from, and the only one whose X-Forwarded-For the fronted gateway
 * believes (its TRUST_PROXY). Not 127.0.0.1, where any local client sits by default: a client that reaches the
 * gateway's own port from there names no address but its own.
 */
export const FRONT_SOURCE_ADDRESS = '127.0.0.2';

/**
 * HAProxy's configuration: listening on 127.0.0.1:`port`, everything to the gateways at `gateways` (their base URLs):
 * reads, writes and the notification stream each by a way of its own. The client's address goes on in
 * X-Forwarded-For, set by HAProxy in place of whatever the client sent (`option forwardfor` would append to a forged
 * one), from `FRONT_SOURCE_ADDRESS`, the one peer the gateway believes: its per-address limits see each client, and no
 * client can name another address. A request must arrive within 10 s (a slow client holds no slot); a stream's
 * keep-alive (15 s) keeps its connection inside the 60 s idle timeouts.
 */
export function frontConfig({ port, gateways, settings = FRONT_DEFAULTS }) {
  const servers = (options = '') =>
    gateways
      .map((url, i) => {
        const { hostname, port: gatewayPort } = new URL(url);
        return `  server gateway${i} ${hostname}:${gatewayPort}${options}`;
      })
      .join('\n');
  return `global
  nbthread 1

defaults
  mode http
  source ${FRONT_SOURCE_ADDRESS}
  timeout connect 5s
  timeout http-request 10s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 30s
  timeout queue ${settings.queueMs}ms
  # A gateway restarting refuses connections for a few seconds: a request whose connection it refused never
  # reached it, and is tried again, on the other gateway where there are two (redispatch), about once a second.
  retries 10
  option redispatch 1
  # HAProxy's own answers in the gateway's form: a request that waited too long or found the gateway
  # down, a gateway that answered wrongly or not in time.
  http-error ${AT_CAPACITY}
  http-error ${answer(502, 'The gateway did not answer properly')}
  http-error ${answer(504, 'The gateway did not answer in time')}

frontend front
  bind 127.0.0.1:${port}
  http-request set-header X-Forwarded-For %[src]
  acl stream path /api/notifications/stream
  acl read method GET HEAD
  http-request return ${AT_CAPACITY} if read !stream { queue(reads) gt ${settings.queueLimit} }
  use_backend streams if stream
  use_backend reads if read
  default_backend writes

backend reads
  http-reuse always
${servers(` maxconn ${settings.maxconn}`)}

backend writes
  http-reuse always
${servers()}

backend streams
${servers()}
`;
}

/**
 * How to run HAProxy with `frontConfig(options)`, written to a file of its own: in the foreground (-db) and quiet
 * (-q: each line the system's processes write is a JSON log line). `remove` deletes the file, once HAProxy has read
 * it or exited.
 */
export function frontCommand(options) {
  const dir = mkdtempSync(join(tmpdir(), 'recipes-front-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, frontConfig(options));
  return {
    command: HAPROXY,
    args: ['-q', '-db', '-f', file],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
