// Measurements, reduced to the figures the table shows.
import autocannon from 'autocannon';

/** Throughput and latency under `connections` concurrent connections (autocannon, whole milliseconds). */
export async function measure({ url, method = 'GET', headers, body, connections, durationSeconds, warmupSeconds = 1 }) {
  const options = { url, method, headers, body, connections };
  if (warmupSeconds > 0) await autocannon({ ...options, duration: warmupSeconds });
  const result = await autocannon({ ...options, duration: durationSeconds });
  // Which statuses the errors were, e.g. 503 from load shedding, so a row with errors explains itself.
  const failedStatuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${status}×${count}`);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
    ...(failedStatuses.length > 0 || result.errors + result.timeouts > 0
      ? {
          errorKinds: [
            ...failedStatuses,
            ...(result.errors ? [`connection×${result.errors}`] : []),
            ...(result.timeouts ? [`timeout×${result.timeouts}`] : []),
          ].join(' '),
        }
      : {}),
  };
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round = (ms) => +ms.toFixed(3);

/**
 * One request at a time for `seconds`, each timed to the microsecond: the cost of a request on its own,
 * which autocannon's whole-millisecond percentiles cannot show when it is about a millisecond.
 */
export async function sequential({ url, headers, seconds, warmupRequests = 50 }) {
  const once = async () => {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    return response.ok;
  };
  for (let i = 0; i < warmupRequests; i++) await once();
  const times = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    if (!(await once())) errors += 1;
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const total = times.reduce((sum, t) => sum + t, 0);
  return {
    requestsPerSecond: Math.round((times.length * 1000) / total),
    p50Ms: round(percentile(times, 50)),
    p99Ms: round(percentile(times, 99)),
    meanMs: round(total / times.length),
    errors,
  };
}
