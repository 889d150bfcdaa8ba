// An open loop: requests sent at a fixed rate whether or not earlier ones have been answered, as users
// arrive, rather than autocannon's fixed number of connections, which waits for each answer and so slows
// down with the system it measures. Each request's latency runs from when it was due, so a moment the
// load generator itself fell behind counts against the system too, never hides a stall.
import { Agent, request } from 'node:http';
import { percentile } from './measure.mjs';

// node:http rather than fetch: the load generator shares the two cores with the system, and costs less so.
// No socket limit: a request due while every socket is busy opens another, as a new client would.
const sharedAgent = new Agent({ keepAlive: true });

/** A request not answered within this long is abandoned and counts as a timeout, as a client would give up. */
export const TIMEOUT_MS = 10_000;

/**
 * Sends one request (`{ method, url, headers, body, keepBody }`); resolves with its status (0 when the
 * request failed, 'timeout' when no answer came within `timeoutMs`) and, with `keepBody`, its body.
 */
function call(agent, { method = 'GET', url, headers, body, keepBody = false }, timeoutMs) {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = request(url, { method, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => keepBody && chunks.push(chunk));
      response.on('end', () =>
        settle({ status: response.statusCode, ...(keepBody ? { body: Buffer.concat(chunks).toString() } : {}) }),
      );
      response.on('error', () => settle({ status: 0 }));
    });
    const timer = setTimeout(() => {
      settle({ status: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', () => settle({ status: 0 }));
    req.end(body);
  });
}

/**
 * Open loop through `segments` (`[{ rate, seconds }]`) one after the other, without a pause between them;
 * request i is `next(i)`. Each answer: its segment, when it was due from that segment's start (s), its
 * status and body as `call` gives them, and its latency from when it was due (ms). `sentPerSecond`: the
 * rate the load generator achieved in each segment.
 */
export async function schedule(next, segments, { agent = sharedAgent, timeoutMs = TIMEOUT_MS } = {}) {
  const answered = [];
  const sentPerSecond = [];
  let i = 0;
  let segmentStart = performance.now() + 100;
  for (const [segment, { rate, seconds }] of segments.entries()) {
    const total = Math.round(rate * seconds);
    for (let n = 0; n < total; n++, i++) {
      const due = segmentStart + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const dueS = (due - segmentStart) / 1000;
      answered.push(
        call(agent, next(i), timeoutMs).then((answer) => ({ segment, dueS, ...answer, ms: performance.now() - due })),
      );
    }
    sentPerSecond.push(Math.round(total / Math.max(seconds, (performance.now() - segmentStart) / 1000)));
    segmentStart += seconds * 1000;
  }
  return { sentPerSecond, answers: await Promise.all(answered) };
}

const ms = (value) => (value === undefined ? null : +value.toFixed(1));
const percentiles = (latencies) => {
  const sorted = latencies.sort((a, b) => a - b);
  return sorted.length === 0
    ? { p50: null, p99: null, max: null }
    : { p50: ms(percentile(sorted, 50)), p99: ms(percentile(sorted, 99)), max: ms(sorted.at(-1)) };
};

/**
 * What a set of answers came to: how many were 2xx, 429, 503, anything else (by status, 0 for a failed
 * request) and timeouts; the latency percentiles of the 2xx (admitted) and of the 503s (refused) apart.
 */
export function tally(answers) {
  const admitted = [];
  const refused = [];
  const others = {};
  let tooMany = 0;
  let timeouts = 0;
  for (const { status, ms: latency } of answers) {
    if (status === 'timeout') timeouts += 1;
    else if (status >= 200 && status < 300) admitted.push(latency);
    else if (status === 503) refused.push(latency);
    else if (status === 429) tooMany += 1;
    else others[status] = (others[status] ?? 0) + 1;
  }
  return {
    answers: answers.length,
    ok: admitted.length,
    tooMany,
    refused: refused.length,
    other: Object.values(others).reduce((sum, n) => sum + n, 0),
    otherKinds: Object.entries(others)
      .map(([status, n]) => `${status === '0' ? 'connection' : status}×${n}`)
      .join(' '),
    timeouts,
    admitted: percentiles(admitted),
    refusedMs: percentiles(refused),
  };
}

/**
 * `rate` requests a second for `seconds`, taking `requests` (`{ url, headers }`) in turn, after as many
 * for `warmupSeconds` that do not count: the latency percentiles, the rate achieved, and the failures
 * (any status but 200) by status.
 */
export async function openLoop(requests, { rate, seconds, warmupSeconds = 5 }) {
  const next = (i) => requests[i % requests.length];
  await schedule(next, [{ rate, seconds: warmupSeconds }]);
  const { sentPerSecond, answers } = await schedule(next, [{ rate, seconds }]);
  const latencies = answers.map((r) => r.ms).sort((a, b) => a - b);
  const failures = {};
  for (const { status } of answers) if (status !== 200) failures[status] = (failures[status] ?? 0) + 1;
  return {
    requestsPerSecond: sentPerSecond[0],
    p50Ms: +percentile(latencies, 50).toFixed(1),
    p99Ms: +percentile(latencies, 99).toFixed(1),
    maxMs: +latencies.at(-1).toFixed(1),
    errors: Object.values(failures).reduce((sum, n) => sum + n, 0),
    ...(Object.keys(failures).length > 0
      ? {
          errorKinds: Object.entries(failures)
            .map(([status, n]) => `${status === '0' ? 'connection' : status}×${n}`)
            .join(' '),
        }
      : {}),
    sent: answers.length,
  };
}
