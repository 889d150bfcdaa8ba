// An open loop: requests sent at a fixed rate whether or not earlier ones have been answered, as users
// arrive, rather than autocannon's fixed number of connections, which waits for each answer and so slows
// down with the system it measures. Each request's latency runs from when it was due, so a moment the
// load generator itself fell behind counts against the system too, never hides a stall.
import { Agent, request } from 'node:http';
import { percentile } from './measure.mjs';

// node:http rather than fetch: the load generator shares the two cores with the system, and costs less so.
// No socket limit: a request due while every socket is busy opens another, as a new client would.
const agent = new Agent({ keepAlive: true });

/** GETs `url`; resolves with its status, or 0 when the request failed. */
function get(url, headers) {
  return new Promise((resolve) => {
    const req = request(url, { headers, agent }, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => resolve(response.statusCode));
      response.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** `total` requests at `rate` a second from `requests` in turn: each one's status, and its time from when it was due. */
async function send(requests, { rate, total }) {
  const answered = [];
  const start = performance.now() + 100;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { url, headers } = requests[i % requests.length];
    answered.push(get(url, headers).then((status) => ({ status, ms: performance.now() - due })));
  }
  const achievedRate = total / ((performance.now() - start) / 1000);
  return { achievedRate, results: await Promise.all(answered) };
}

/**
 * `rate` requests a second for `seconds`, taking `requests` (`{ url, headers }`) in turn, after as many
 * for `warmupSeconds` that do not count: the latency percentiles, the rate achieved, and the failures
 * (any status but 200) by status.
 */
export async function openLoop(requests, { rate, seconds, warmupSeconds = 5 }) {
  await send(requests, { rate, total: Math.round(rate * warmupSeconds) });
  const total = Math.round(rate * seconds);
  const { achievedRate, results } = await send(requests, { rate, total });
  const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
  const failures = {};
  for (const { status } of results) if (status !== 200) failures[status] = (failures[status] ?? 0) + 1;
  return {
    requestsPerSecond: Math.round(achievedRate),
    p50Ms: +percentile(latencies, 50).toFixed(1),
    p99Ms: +percentile(latencies, 99).toFixed(1),
    maxMs: +latencies.at(-1).toFixed(1),
    errors: Object.values(failures).reduce((sum, n) => sum + n, 0),
    ...(Object.keys(failures).length > 0 ? { errorKinds: Object.entries(failures).map(([status, n]) => `${status === '0' ? 'connection' : status}×${n}`).join(' ') } : {}),
    sent: total,
  };
}
