// Each public read against the same work in plain Fastify (bench/reference.mjs, its own process): the
// reference, the owning service directly and through the gateway, each at the same connections for the
// same time, with the CPU every process spent per request (bench/cpu.mjs's method, the reference's
// process added). The reference's body must equal the service's, or the phase stops the bench.
import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { cpuPer, cpuSample } from './cpu.mjs';

/** The reads the reference answers so far, by scenario name (bench/scenarios.mjs). */
export const REFERENCED = ['GET /api/recipes/{id}/comments', 'GET /api/posts/{id}/comments', 'GET /api/collections/{id}/comments', 'GET /api/users/{id}'];

/** Of every URL, before any is measured. */
const WARM_UP_SECONDS = 2;
const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const ratio = (a, b) => +(a / b).toFixed(3);

async function startReference(port, databaseUrl) {
  const child = spawn(process.execPath, ['bench/reference.mjs'], { env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl }, stdio: 'inherit' });
  const url = `http://127.0.0.1:${port}`;
  for (let answered = false; !answered; ) {
    if (child.exitCode !== null) throw new Error(`bench/reference.mjs exited with ${child.exitCode}`);
    answered = await fetch(`${url}/`).then(
      () => true,
      () => pause(0.05).then(() => false),
    );
  }
  return { url, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

async function body(url, headers) {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Stops the bench unless the reference answers exactly what the service does, directly and through the gateway. */
async function checkSameBody(scenario, urls) {
  for (const query of scenario.listing ? ['', '?page=2&limit=30', '?limit=1000'] : ['']) {
    const path = `${scenario.path}${query}`;
    const [reference, direct, gateway] = await Promise.all([body(`${urls.reference}${path}`), body(`${urls.direct}${path}`, scenario.headers), body(`${urls.gateway}${path}`, scenario.headers)]);
    for (const [via, answer] of [
      ['direct', direct],
      ['gateway', gateway],
    ]) {
      if (!isDeepStrictEqual(reference, answer)) {
        throw new Error(`reference: GET ${path} differs from the service (${via}):\nreference ${JSON.stringify(reference).slice(0, 600)}\n${via} ${JSON.stringify(answer).slice(0, 600)}`);
      }
    }
  }
}

/** autocannon at `connections` for `durationSeconds` after a 1 s warm-up, with CPU ms per request of every process. */
async function measureWithCpu({ url, headers, connections, durationSeconds, system, reference }) {
  await autocannon({ url, headers, connections, duration: 1 });
  const before = cpuSample(system, { extra: { reference: reference.pid } });
  const own = process.cpuUsage();
  const result = await autocannon({ url, headers, connections, duration: durationSeconds });
  const after = cpuSample(system, { extra: { reference: reference.pid } });
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
 * For each referenced read among `scenarios`: the body check, then reference, direct, gateway. Returns
 * rows for the main table, targets, and a CPU table per read.
 */
export async function referenceComparison({ system, scenarios, port, connections, durationSeconds }) {
  const reference = await startReference(port, system.databaseUrl);
  const rows = [];
  const targets = [];
  const cpu = {};
  try {
    const reads = REFERENCED.map((name) => {
      const scenario = scenarios.find((s) => s.name === name);
      if (!scenario) throw new Error(`reference: no scenario ${name}`);
      return { name, scenario, urls: { reference: reference.url, direct: system.urlOf(scenario.service), gateway: system.urlOf('gateway') } };
    });
    // Every body checked, then every URL warmed (JIT, pools, prepared statements) before any is measured:
    // the first measured otherwise comes out well below the same work measured later.
    for (const { scenario, urls } of reads) await checkSameBody(scenario, urls);
    for (const { scenario, urls } of reads) {
      for (const via of ['reference', 'direct', 'gateway']) {
        await autocannon({ url: `${urls[via]}${scenario.path}`, headers: via === 'reference' ? undefined : scenario.headers, connections, duration: WARM_UP_SECONDS });
      }
    }
    for (const { name, scenario, urls } of reads) {
      const figures = {};
      for (const via of ['reference', 'direct', 'gateway']) {
        figures[via] = await measureWithCpu({ url: `${urls[via]}${scenario.path}`, headers: via === 'reference' ? undefined : scenario.headers, connections, durationSeconds, system, reference });
      }
      const [ref, direct, gateway] = [figures.reference, figures.direct, figures.gateway];
      const row = (via, f, extra = {}) => ({ scenario: name, via, connections, requestsPerSecond: f.requestsPerSecond, p50Ms: f.p50Ms, p99Ms: f.p99Ms, errors: f.errors, ...extra });
      rows.push(row('reference (plain Fastify, same SQL)', ref));
      rows.push(row(`direct (${scenario.service})`, direct, { ofReference: ratio(direct.requestsPerSecond, ref.requestsPerSecond) }));
      rows.push(row('gateway', gateway, { ofReference: ratio(gateway.requestsPerSecond, ref.requestsPerSecond) }));
      const clean = ref.errors === 0 && direct.errors === 0 && gateway.errors === 0;
      targets.push({
        target: `${name}: direct ≥ 0.90 × the same work in plain Fastify (req/s, ${connections} connections)`,
        figure: `${direct.requestsPerSecond} / ${ref.requestsPerSecond} = ${ratio(direct.requestsPerSecond, ref.requestsPerSecond)}`,
        result: direct.requestsPerSecond >= 0.9 * ref.requestsPerSecond && clean ? 'PASS' : 'MISS',
      });
      targets.push({
        target: `${name}: through the gateway ≥ 0.75 × the same work in plain Fastify (req/s, ${connections} connections)`,
        figure: `${gateway.requestsPerSecond} / ${ref.requestsPerSecond} = ${ratio(gateway.requestsPerSecond, ref.requestsPerSecond)}`,
        result: gateway.requestsPerSecond >= 0.75 * ref.requestsPerSecond && clean ? 'PASS' : 'MISS',
      });
      cpu[name] = { reference: ref.cpu, [`direct (${scenario.service})`]: direct.cpu, gateway: gateway.cpu };
    }
  } finally {
    reference.stop();
  }
  return { rows, targets, cpu };
}
