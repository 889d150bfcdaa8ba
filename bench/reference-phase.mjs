// Every public read against the same work in plain Fastify (bench/reference/server.mjs, its own process,
// one module per owning service): the reference, the owning service behind a bare proxy
// (bench/reference/proxy.mjs: what any Node gateway costs at the least), the owning service directly and
// through the gateway, each with the scenario's headers (its token) at the same connections for the same
// time, with the CPU every process spent per request (bench/cpu.mjs's method, the reference's processes
// added). A read without its copy in the reference, or whose copy answers another body than the service,
// stops the bench.
//
// On two cores the same measurement varies by a tenth or more from one run to the next, and code keeps
// getting faster for tens of seconds as V8 optimises it, a service's many modules for longer than the
// reference's one. So every way of serving every read is first run through a whole round as warm-up,
// then measured in ROUNDS rounds, one after another in each, and each figure is the median round's.
import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { frontCommand } from '../scripts/front.mjs';
import { allocatorSettings } from '../scripts/services.mjs';
import { cpuPer, cpuSample } from './cpu.mjs';

const ROUNDS = Number(process.env.BENCH_REFERENCE_ROUNDS ?? 3);
const VIAS = ['reference', 'bare proxy', 'direct', 'gateway'];
/**
 * The gateway against the bare proxy, both in front of the same service, same reads, same run: at most this much more
 * CPU per request, and at least this share of its throughput.
 */
const GATEWAY_CPU_MARGIN_MS = 0.05;
const GATEWAY_THROUGHPUT_RATIO = 0.95;
const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const ratio = (a, b) => +(a / b).toFixed(3);

/**
 * Spawns `command` with `args` and `env` (and the services' allocator settings) and resolves once it answers on
 * `port`.
 */
async function startCommand(command, args, port, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...allocatorSettings, ...env }, stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}`;
  for (let answered = false; !answered;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}`);
    answered = await fetch(`${url}/`).then(
      (response) => response.arrayBuffer().then(() => true),
      () => pause(0.05).then(() => false),
    );
  }
  return { url, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

/** The Node `script` on `port`, by `startCommand`. */
export const startProcess = (script, port, env) =>
  startCommand(process.execPath, [script], port, { PORT: String(port), ...env });

/**
 * HAProxy on `port` before the gateway at `gateway`, configured as `npm start` configures it (scripts/front.mjs),
 * with `settings` for its limits where given, by `startCommand`.
 */
export async function startFront(port, gateway, settings) {
  const { command, args, remove } = frontCommand({ port, gateway, settings });
  return startCommand(command, args, port).finally(remove);
}

/** The body, and the caching headers (the notification reads' ETag), which must be the same too. */
async function answer(url, headers) {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return {
    body: await response.json(),
    etag: response.headers.get('etag'),
    cacheControl: response.headers.get('cache-control'),
  };
}

/** Stops the bench unless the reference has a copy of every read: it answers 501 for one it lacks. */
async function checkEveryReadCopied(reads) {
  const missing = [];
  for (const { name, scenario, urls } of reads) {
    const response = await fetch(`${urls.reference}${scenario.path}`, { headers: scenario.headers });
    await response.arrayBuffer();
    if (response.status === 501) missing.push(`${name} (bench/reference/${scenario.service}.mjs)`);
  }
  if (missing.length > 0) throw new Error(`reference: no copy of ${missing.join(', ')}`);
}

/**
 * Stops the bench unless the reference answers exactly what the service does (body, ETag, Cache-Control), directly and
 * through the gateway.
 */
async function checkSameBody(scenario, urls) {
  for (const query of scenario.listing ? ['', 'page=2&limit=30', 'limit=1000'] : ['']) {
    // A variant's path has a query already (`?standalone=true`): the page goes after it.
    const path = query === '' ? scenario.path : `${scenario.path}${scenario.path.includes('?') ? '&' : '?'}${query}`;
    const [reference, direct, gateway] = await Promise.all([
      answer(`${urls.reference}${path}`, scenario.headers),
      answer(`${urls.direct}${path}`, scenario.headers),
      answer(`${urls.gateway}${path}`, scenario.headers),
    ]);
    for (const [via, service] of [
      ['direct', direct],
      ['gateway', gateway],
    ]) {
      if (!isDeepStrictEqual(reference, service)) {
        throw new Error(
          `reference: GET ${path} differs from the service (${via}):\nreference ` +
            `${JSON.stringify(reference).slice(0, 600)}\n${via} ${JSON.stringify(service).slice(0, 600)}`,
        );
      }
    }
  }
}

/** autocannon at `connections` for `durationSeconds`, with CPU ms per request of every process. */
async function measureWithCpu({ url, headers, connections, durationSeconds, system, extra }) {
  const before = cpuSample(system, { extra });
  const own = process.cpuUsage();
  const result = await autocannon({ url, headers, connections, duration: durationSeconds });
  const after = cpuSample(system, { extra });
  const requests = result.requests.total;
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    requests,
    cpu: cpuPer(requests, before, after, process.cpuUsage(own)),
  };
}

/**
 * The round with the median req/s (of an even number, the lower middle one), with every round's req/s and any round's
 * errors.
 */
function medianRound(rounds) {
  const sorted = [...rounds].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  return {
    ...median,
    rounds: rounds.map((r) => r.requestsPerSecond).join(' '),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
  };
}

/**
 * One bare proxy in front of each of `services`, on `port` and the ports below it: `{ service: process }`. The
 * gateway is compared with the one in front of the service it forwards to, so that its targets count only what
 * the gateway adds, not the service's own gap to plain Fastify, which the direct target counts.
 */
async function startBareProxies(system, services, port) {
  const proxies = {};
  try {
    for (const [index, service] of services.entries()) {
      proxies[service] = await startProcess('bench/reference/proxy.mjs', port - index, {
        UPSTREAM: system.urlOf(service),
      });
    }
  } catch (error) {
    for (const proxy of Object.values(proxies)) proxy.stop();
    throw error;
  }
  return proxies;
}

/**
 * For each of `scenarios`: the body check, then reference, bare proxy, direct and gateway, in rounds.
 * `ports`: `{ reference, proxies }`, where the reference listens and the first bare proxy (the others on the ports
 * below it). `publicKeyFile`: the key the system's services check tokens with. Returns rows for the main table,
 * targets, and a CPU table per read.
 */
export async function referenceComparison({
  system,
  scenarios,
  ports,
  connections,
  durationSeconds,
  publicKeyFile = system.process('users').env.JWT_PUBLIC_KEY_FILE,
}) {
  const reference = await startProcess('bench/reference/server.mjs', ports.reference, {
    DATABASE_URL: system.databaseUrl,
    JWT_PUBLIC_KEY_FILE: publicKeyFile,
    // GET /api/push/public-key answers the notifications service's key.
    PUSH_VAPID_PUBLIC_KEY: system.process('notifications').env.PUSH_VAPID_PUBLIC_KEY,
  });
  const proxies = await startBareProxies(system, [...new Set(scenarios.map((s) => s.service))], ports.proxies).catch(
    (error) => {
      reference.stop();
      throw error;
    },
  );
  const extra = { reference: reference.pid, 'bare proxy': Object.values(proxies).map((proxy) => proxy.pid) };
  const rows = [];
  const targets = [];
  const cpu = {};
  try {
    const reads = scenarios.map((scenario) => ({
      name: scenario.name,
      scenario,
      urls: {
        reference: reference.url,
        'bare proxy': proxies[scenario.service].url,
        direct: system.urlOf(scenario.service),
        gateway: system.urlOf('gateway'),
      },
    }));
    await checkEveryReadCopied(reads);
    for (const { scenario, urls } of reads) await checkSameBody(scenario, urls);
    const measured = new Map(reads.map(({ name }) => [name, Object.fromEntries(VIAS.map((via) => [via, []]))]));
    // Round 0 warms every URL up (JIT, pools, prepared statements) and is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const { name, scenario, urls } of reads) {
        for (const via of VIAS) {
          const figures = await measureWithCpu({
            url: `${urls[via]}${scenario.path}`,
            headers: scenario.headers,
            connections,
            durationSeconds,
            system,
            extra,
          });
          if (round > 0) measured.get(name)[via].push(figures);
        }
      }
    }
    for (const { name, scenario } of reads) {
      const [ref, bare, direct, gateway] = VIAS.map((via) => medianRound(measured.get(name)[via]));
      const row = (via, f, extra = {}) => ({
        scenario: name,
        via,
        connections,
        requestsPerSecond: f.requestsPerSecond,
        rounds: f.rounds,
        p50Ms: f.p50Ms,
        p99Ms: f.p99Ms,
        errors: f.errors,
        ...extra,
      });
      rows.push(row('reference (plain Fastify, same SQL)', ref));
      rows.push(
        row(`bare proxy in front of ${scenario.service}`, bare, {
          ofReference: ratio(bare.requestsPerSecond, ref.requestsPerSecond),
        }),
      );
      rows.push(
        row(`direct (${scenario.service})`, direct, {
          ofReference: ratio(direct.requestsPerSecond, ref.requestsPerSecond),
        }),
      );
      rows.push(
        row('gateway', gateway, {
          ofReference: ratio(gateway.requestsPerSecond, ref.requestsPerSecond),
          ofBareProxy: ratio(gateway.requestsPerSecond, bare.requestsPerSecond),
        }),
      );
      const clean = [ref, bare, direct, gateway].every((via) => via.errors === 0);
      targets.push({
        target: `${name}: direct ≥ 0.90 × the same work in plain Fastify (req/s, ${connections} connections, median of ${ROUNDS})`,
        figure: `${direct.requestsPerSecond} / ${ref.requestsPerSecond} = ${ratio(direct.requestsPerSecond, ref.requestsPerSecond)}`,
        result: direct.requestsPerSecond >= 0.9 * ref.requestsPerSecond && clean ? 'PASS' : 'MISS',
      });
      // The gateway against the bare proxy in front of the same service: what any Node proxy costs at the least.
      const [gatewayCpu, bareCpu] = [gateway.cpu['gateway#0'], bare.cpu['bare proxy']];
      targets.push({
        target: `${name}: the gateway ≤ a bare proxy's CPU per request + ${GATEWAY_CPU_MARGIN_MS} ms, both in front of ${scenario.service} (${connections} connections, median of ${ROUNDS})`,
        figure: `${gatewayCpu} ms vs ${bareCpu} ms`,
        result: gatewayCpu <= bareCpu + GATEWAY_CPU_MARGIN_MS && clean ? 'PASS' : 'MISS',
      });
      targets.push({
        target: `${name}: through the gateway ≥ ${GATEWAY_THROUGHPUT_RATIO} × through a bare proxy, both in front of ${scenario.service} (req/s, ${connections} connections, median of ${ROUNDS})`,
        figure:
          `${gateway.requestsPerSecond} / ${bare.requestsPerSecond} = ${ratio(gateway.requestsPerSecond, bare.requestsPerSecond)}` +
          ` (of ${scenario.service} directly: the gateway ${ratio(gateway.requestsPerSecond, direct.requestsPerSecond)}, ` +
          `the bare proxy ${ratio(bare.requestsPerSecond, direct.requestsPerSecond)})`,
        result:
          gateway.requestsPerSecond >= GATEWAY_THROUGHPUT_RATIO * bare.requestsPerSecond && clean ? 'PASS' : 'MISS',
      });
      cpu[name] = {
        reference: ref.cpu,
        [`bare proxy in front of ${scenario.service}`]: bare.cpu,
        [`direct (${scenario.service})`]: direct.cpu,
        gateway: gateway.cpu,
      };
    }
  } finally {
    reference.stop();
    for (const proxy of Object.values(proxies)) proxy.stop();
  }
  return { rows, targets, cpu };
}
