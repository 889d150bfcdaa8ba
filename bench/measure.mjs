// One autocannon measurement, reduced to the figures the table shows.
import autocannon from 'autocannon';

export async function measure({ url, method = 'GET', headers, body, connections = 50, durationSeconds = 10, warmupSeconds = 2 }) {
  const options = { url, method, headers, body, connections };
  if (warmupSeconds > 0) await autocannon({ ...options, duration: warmupSeconds });
  const result = await autocannon({ ...options, duration: durationSeconds });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}
