// Every public read against the same work in plain Fastify (bench/reference/server.mjs, its own process,
// one module per owning service): the reference, the owning service behind a bare proxy
// (bench/reference/proxy.mjs: what any Node gateway costs at the least), the owning service directly and
// through the gateway, each with the scenario's headers (its token) at the same connections for the same
// time, with the CPU every process spent per request (bench/cpu.mjs's method, the reference's processes
// added). A read without its copy in the reference, or whose copy answers another body than the service,
// stops the bench.
//
// On two cores the same measurement varies by a tenth or more from one round to the next, and by as much
// from one start of the processes to the next: a start's rounds agree with each other more than with
// another start's. So the comparison is made over STARTS starts of every process it measures (the
// reference, the bare proxies, the owning services and the gateway, each started afresh), and each target
// decides on the median of the starts' ratios. Code keeps getting faster for tens of seconds as V8
// optimises it, a service's many modules for longer than the reference's one, so in each start every way
// of serving every read is first run through a whole round as warm-up, then measured in ROUNDS rounds,
// one after another in each; a start's figure is its median round's.
import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { frontCommand } from '../scripts/front.mjs';
import { allocatorSettings } from '../scripts/services.mjs';
import { cpuPer, cpuSample } from './cpu.mjs';
import { percentile } from './measure.mjs';

const ROUNDS = Number(process.env.BENCH_REFERENCE_ROUNDS ?? 2);
const STARTS = Number(process.env.BENCH_REFERENCE_STARTS ?? 3);
const VIAS = ['reference', 'bare proxy', 'direct', 'gateway'];
/**
 * The gateway against the bare proxy, both in front of the same service, same reads, same run: at most this much more
 * CPU per request, and at least this share of its throughput.
 */
const GATEWAY_CPU_MARGIN_MS = 0.05;
const GATEWAY_THROUGHPUT_RATIO = 0.95;
const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const ratio = (a, b) => +(a / b).toFixed(3);
const ascending = (a, b) => a - b;
/** The middle of `values` (of an even number, the lower middle one). */
const median = (values) => percentile(values.toSorted(ascending), 50);

/**
 * Spawns `command` with `args` and `env` (and the services' allocator settings) and resolves once it answers on
 * `port`.
 */
async function startCommand(command, args, port, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...allocatorSettings, ...env }, stdio: 'inherit' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  for (let answered = false; !answered;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode}`);
    answered = await fetch(`${url}/`).then(
      (response) => response.arrayBuffer().then(() => true),
      () => pause(0.05).then(() => false),
    );
  }
  // Resolves once it has exited, and so has let go of its port.
  return { url, pid: child.pid, stop: () => (child.kill('SIGTERM'), exited) };
}

/** The Node `script` on `port`, by `startCommand`. */
export const startProcess = (script, port, env) =>
  startCommand(process.execPath, [script], port, { PORT: String(port), ...env });

/**
 * HAProxy on `port` before the gateway at `gateway`, configured as `npm start` configures it (scripts/front.mjs),
 * with `settings` for its limits where given, by `startCommand`.
 */
export async function startFront(port, gateway, settings) {
  const { command, args, remove } = frontCommand({ port, gateways: [gateway], settings });
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
 * Of `figures` (rounds, or starts' median rounds), the one with the median req/s (of an even number, the lower middle
 * one), with the errors of all.
 */
function medianFigures(figures) {
  const sorted = figures.toSorted((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return { ...percentile(sorted, 50), errors: figures.reduce((sum, f) => sum + f.errors, 0) };
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
    await Promise.all(Object.values(proxies).map((proxy) => proxy.stop()));
    throw error;
  }
  return proxies;
}

/** The reference and a bare proxy in front of each of `services`, with their pids as cpuSample's `extra`. */
async function startComparators({ system, services, ports, publicKeyFile }) {
  const reference = await startProcess('bench/reference/server.mjs', ports.reference, {
    DATABASE_URL: system.databaseUrl,
    JWT_PUBLIC_KEY_FILE: publicKeyFile,
    // GET /api/push/public-key answers the notifications service's key.
    PUSH_VAPID_PUBLIC_KEY: system.process('notifications').env.PUSH_VAPID_PUBLIC_KEY,
  });
  const proxies = await startBareProxies(system, services, ports.proxies).catch(async (error) => {
    await reference.stop();
    throw error;
  });
  return {
    reference,
    proxies,
    extra: { reference: reference.pid, 'bare proxy': Object.values(proxies).map((proxy) => proxy.pid) },
    stop: () => Promise.all([reference, ...Object.values(proxies)].map((comparator) => comparator.stop())),
  };
}

/** The system's processes the comparison measures, started afresh: `services`, then the gateways in front of them. */
async function restartMeasured(system, services) {
  const restart = (chosen) => Promise.all(system.processes.filter(chosen).map((instance) => instance.restart()));
  await restart((instance) => services.includes(instance.service));
  await restart((instance) => instance.service === 'gateway');
}

/**
 * One start's measurements: a warm-up round (JIT, pools, prepared statements), then ROUNDS rounds of every read by
 * every via. For each read, each via's median round, with every round's req/s.
 */
async function measureStart(reads, { system, extra, connections, durationSeconds }) {
  const measured = new Map(reads.map(({ name }) => [name, Object.fromEntries(VIAS.map((via) => [via, []]))]));
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
  const byVia = (rounds) =>
    Object.fromEntries(
      VIAS.map((via) => [
        via,
        { ...medianFigures(rounds[via]), rounds: rounds[via].map((r) => r.requestsPerSecond).join(' ') },
      ]),
    );
  return new Map([...measured].map(([name, rounds]) => [name, byVia(rounds)]));
}

/**
 * For each of `scenarios`: the body check, then, in each of STARTS starts, reference, bare proxy, direct and gateway,
 * in rounds. `ports`: `{ reference, proxies }`, where the reference listens and the first bare proxy (the others on the
 * ports below it). `publicKeyFile`: the key the system's services check tokens with. Returns rows for the main table
 * (each via's median start), targets (each on the median of the starts' ratios), and a CPU table per read.
 */
export async function referenceComparison({
  system,
  scenarios,
  ports,
  connections,
  durationSeconds,
  publicKeyFile = system.process('users').env.JWT_PUBLIC_KEY_FILE,
}) {
  const services = [...new Set(scenarios.map((s) => s.service))];
  const starts = [];
  for (let start = 1; start <= STARTS; start++) {
    if (start > 1) await restartMeasured(system, services);
    const comparators = await startComparators({ system, services, ports, publicKeyFile });
    try {
      const reads = scenarios.map((scenario) => ({
        name: scenario.name,
        scenario,
        urls: {
          reference: comparators.reference.url,
          'bare proxy': comparators.proxies[scenario.service].url,
          direct: system.urlOf(scenario.service),
          gateway: system.urlOf('gateway'),
        },
      }));
      if (start === 1) {
        await checkEveryReadCopied(reads);
        for (const { scenario, urls } of reads) await checkSameBody(scenario, urls);
      }
      starts.push(await measureStart(reads, { system, extra: comparators.extra, connections, durationSeconds }));
    } finally {
      await comparators.stop();
    }
  }

  const rows = [];
  const targets = [];
  const cpu = {};
  const measured = `${connections} connections, ${STARTS} starts of ${ROUNDS} rounds`;
  for (const { name, service } of scenarios) {
    const byStart = starts.map((start) => start.get(name));
    const [ref, bare, direct, gateway] = VIAS.map((via) => {
      const figures = byStart.map((start) => start[via]);
      return { ...medianFigures(figures), rounds: figures.map((f) => f.rounds).join(' | ') };
    });
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
      row(`bare proxy in front of ${service}`, bare, {
        ofReference: ratio(bare.requestsPerSecond, ref.requestsPerSecond),
      }),
    );
    rows.push(
      row(`direct (${service})`, direct, { ofReference: ratio(direct.requestsPerSecond, ref.requestsPerSecond) }),
    );
    rows.push(
      row('gateway', gateway, {
        ofReference: ratio(gateway.requestsPerSecond, ref.requestsPerSecond),
        ofBareProxy: ratio(gateway.requestsPerSecond, bare.requestsPerSecond),
      }),
    );
    const clean = [ref, bare, direct, gateway].every((via) => via.errors === 0);
    // Each start's ratio, and the median of them that decides.
    const overStarts = (each, unit = '') => {
      const values = byStart.map(each);
      const decided = median(values);
      return { decided, figure: `${values.join(unit + ', ')}${unit}: median ${decided}${unit}` };
    };
    const directRatio = overStarts((start) => ratio(start.direct.requestsPerSecond, start.reference.requestsPerSecond));
    targets.push({
      target: `${name}: direct ≥ 0.90 × the same work in plain Fastify (req/s, ${measured})`,
      figure: `by start ${directRatio.figure}`,
      result: directRatio.decided >= 0.9 && clean ? 'PASS' : 'MISS',
    });
    // The gateway against the bare proxy in front of the same service: what any Node proxy costs at the least.
    const cpuMargin = overStarts(
      (start) => +(start.gateway.cpu['gateway#0'] - start['bare proxy'].cpu['bare proxy']).toFixed(2),
      ' ms',
    );
    targets.push({
      target: `${name}: the gateway ≤ a bare proxy's CPU per request + ${GATEWAY_CPU_MARGIN_MS} ms, both in front of ${service} (${measured})`,
      figure: `${gateway.cpu['gateway#0']} ms vs ${bare.cpu['bare proxy']} ms; more by start ${cpuMargin.figure}`,
      result: cpuMargin.decided <= GATEWAY_CPU_MARGIN_MS && clean ? 'PASS' : 'MISS',
    });
    const gatewayRatio = overStarts((start) =>
      ratio(start.gateway.requestsPerSecond, start['bare proxy'].requestsPerSecond),
    );
    targets.push({
      target: `${name}: through the gateway ≥ ${GATEWAY_THROUGHPUT_RATIO} × through a bare proxy, both in front of ${service} (req/s, ${measured})`,
      figure:
        `by start ${gatewayRatio.figure} (of ${service} directly, median starts: the gateway ` +
        `${ratio(gateway.requestsPerSecond, direct.requestsPerSecond)}, the bare proxy ${ratio(bare.requestsPerSecond, direct.requestsPerSecond)})`,
      result: gatewayRatio.decided >= GATEWAY_THROUGHPUT_RATIO && clean ? 'PASS' : 'MISS',
    });
    cpu[name] = {
      reference: ref.cpu,
      [`bare proxy in front of ${service}`]: bare.cpu,
      [`direct (${service})`]: direct.cpu,
      gateway: gateway.cpu,
    };
  }
  return { rows, targets, cpu };
}
