// The notification stream (docs/api.md §9) under load, and what a 304 saves:
// - mention → `event: notification` with many streams open through the gateway: comments posted at a
//   steady rate, each mentioning one of the streams' users, timed from the POST's start until the
//   notification arrives on that user's stream;
// - the memory of many idle streams, held directly by one notifications instance and through one gateway;
// - the CPU a request to `unread-count` and to the list costs when it is answered 304 (`If-None-Match`)
//   and when 200.
// Tokens are signed here with the bench system's own key (startSystem writes it to .keys/<name>/), with
// the claims of a token the users service issued: logging in a thousand users would cost minutes of
// password hashing, and opening a stream needs nothing but a valid token.
import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { resolve } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import autocannon from 'autocannon';
import { cpuPer, cpuSample, cpuSpent } from './cpu.mjs';
import { latencyFigures, postComment } from './mentions.mjs';
import { sampleRss } from './memory.mjs';

/**
 * Starts counting CPU as cpu.mjs does, PostgreSQL's backends of `database` only; `stop(units)` gives ms per
 * unit by part (cpuPer), and `raw`, the ms of each part unrounded.
 */
function cpuMeter(system, database) {
  const [before, ownCpu] = [cpuSample(system, { database }), process.cpuUsage()];
  return (units) => {
    const after = cpuSample(system, { database });
    return { perUnit: cpuPer(units, before, after, process.cpuUsage(ownCpu)), raw: cpuSpent(before, after) };
  };
}

export const STREAM_PATH = '/api/notifications/stream';
const UNREAD_COUNT_PATH = '/api/notifications/unread-count';
/** The two reads a client polls, each with its validator. */
export const CONDITIONAL_READS = { 'unread-count': UNREAD_COUNT_PATH, list: '/api/notifications' };

/**
 * Signs tokens for any user with the key of the system `name`, with the claims (issuer, audience, lifetime) of
 * `template`.
 */
export function tokenSigner(name, template) {
  const key = createPrivateKey(readFileSync(resolve(`.keys/${name}/jwt-private.pem`)));
  const [header, payload] = template.split('.');
  const { iss, aud, iat, exp } = JSON.parse(Buffer.from(payload, 'base64url'));
  return ({ id, username }) => {
    const now = Math.floor(Date.now() / 1000);
    const claims = Buffer.from(
      JSON.stringify({ sub: id, username, iat: now, exp: now + (exp - iat), iss, aud }),
    ).toString('base64url');
    const input = `${header}.${claims}`;
    return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
  };
}

/**
 * One event of a `text/event-stream`, as `EventSource` would dispatch it (libs/testing/src/sse.ts, in short); undefined
 * for a comment.
 */
function parseEvent(block) {
  const event = { event: 'message', data: '' };
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields += 1;
    if (field === 'event') event.event = value;
    else if (field === 'data') event.data = event.data === '' ? value : `${event.data}\n${value}`;
    else if (field === 'id') event.id = value;
  }
  return fields > 0 ? event : undefined;
}

/**
 * Opens `url` as an event stream with `token`; resolves once its first `unread_count` has come, i.e.
 * the server holds the stream and has read its position. `onEvent(event, at)` gets every event after.
 * `agent` keeps no idle socket: each stream is a connection of its own, closed by `close()`.
 */
function openStream(url, token, agent, onEvent = () => {}) {
  return new Promise((resolveOpen, rejectOpen) => {
    const stream = { ended: false, close: () => req.destroy() };
    const req = get(
      url,
      { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          rejectOpen(new Error(`${url}: ${response.statusCode}`));
          return;
        }
        response.setEncoding('utf8');
        let buffer = '';
        let opened = false;
        response.on('data', (chunk) => {
          const at = performance.now();
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
            const event = parseEvent(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (event === undefined) continue;
            if (!opened && event.event === 'unread_count') {
              opened = true;
              resolveOpen(stream);
            } else if (opened) onEvent(event, at);
          }
        });
        response.on('close', () => {
          stream.ended = true;
          if (!opened) rejectOpen(new Error(`${url}: the stream ended before its first unread_count`));
        });
      },
    );
    req.on('error', (error) => {
      stream.ended = true;
      rejectOpen(error);
    });
  });
}

/** Opens a stream for each of `tokens`, `batch` at a time; closes what it opened if one fails. */
export async function openStreams(url, tokens, { batch = 200, onEvent = () => () => {} } = {}) {
  const streams = [];
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    for (let i = 0; i < tokens.length; i += batch) {
      const opened = await Promise.allSettled(
        tokens.slice(i, i + batch).map((token, j) => openStream(url, token, agent, onEvent(i + j))),
      );
      for (const result of opened) if (result.status === 'fulfilled') streams.push(result.value);
      const failed = opened.find((result) => result.status === 'rejected');
      if (failed)
        throw new Error(`stream ${streams.length + 1} of ${tokens.length} did not open: ${failed.reason.message}`);
    }
  } catch (error) {
    for (const stream of streams) stream.close();
    throw error;
  }
  return streams;
}

/**
 * Closes `streams` and waits until the notifications service has forgotten every open stream (its `open_streams` rows).
 */
export async function closeStreams(streams, pool) {
  for (const stream of streams) stream.close();
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await pause(200)) {
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM notifications.open_streams');
    if (rows[0].n === 0) return;
  }
  throw new Error('the notifications service still records open streams a minute after they were closed');
}

/**
 * `streams` of the seeded people (one each) open through the gateway; `rate` comments a second for
 * `seconds` on the viewer's recipe, comment i mentioning person i % `mentioned`; each timed from its
 * POST's start until its `event: notification` arrives on that person's stream. `cpu`: CPU ms per
 * comment by part of the system (cpu.mjs), while the streams are open.
 */
export async function streamedMentionLatency(
  system,
  pools,
  fixture,
  signToken,
  { database, streams: count, mentioned, rate, seconds },
) {
  const { urlOf } = system;
  const { rows: people } = await pools.public.query('SELECT k, id FROM bench_people ORDER BY k LIMIT $1', [count]);
  if (people.length < count) throw new Error(`${count} streams need as many seeded people, there are ${people.length}`);
  const users = people.map(({ k, id }) => ({ id, username: `bench_user_${k}` }));

  const arrivedAt = new Map();
  let duplicates = 0;
  let strayEvents = 0;
  const streams = await openStreams(
    `${urlOf('gateway')}${STREAM_PATH}`,
    users.map((user) => signToken(user)),
    {
      onEvent: (index) => (event, at) => {
        if (event.event !== 'notification') return;
        const { commentId } = JSON.parse(event.data);
        if (index >= mentioned) strayEvents += 1;
        else if (arrivedAt.has(commentId)) duplicates += 1;
        else arrivedAt.set(commentId, at);
      },
    },
  );
  const postAgent = new Agent({ keepAlive: true }); // destroyed as the phase ends (see postComment)
  try {
    const url = `${urlOf('gateway')}/api/recipes/${fixture.recipeId}/comments`;
    const headers = { authorization: `Bearer ${fixture.viewer.token}`, 'content-type': 'application/json' };
    const total = Math.round(rate * seconds);
    const sent = [];
    const stopCpu = cpuMeter(system, database);
    const start = performance.now() + 100;
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await pause(wait);
      const sentAt = performance.now();
      const body = JSON.stringify({ content: `Streamed mention ${i} for @${users[i % mentioned].username}` });
      sent.push(postComment(postAgent, url, headers, body).then((commentId) => commentId && { commentId, sentAt }));
    }
    const achievedRate = total / ((performance.now() - start) / 1000);
    const comments = (await Promise.all(sent)).filter((comment) => comment !== undefined);
    // Stragglers get ten seconds; one that never arrives counts as an error.
    for (
      const deadline = Date.now() + 10_000;
      Date.now() < deadline && comments.some(({ commentId }) => !arrivedAt.has(commentId));
    )
      await pause(50);
    // While the streams are open, from the first comment until the last one's event (or the stragglers' deadline).
    const cpu = stopCpu(total).perUnit;

    return {
      ...latencyFigures(comments, arrivedAt, total, achievedRate),
      failedPosts: total - comments.length,
      openStreams: streams.length,
      mentionedStreams: mentioned,
      streamsEnded: streams.filter((stream) => stream.ended).length,
      duplicates,
      strayEvents,
      cpu,
    };
  } finally {
    postAgent.destroy();
    await closeStreams(streams, pools.public);
  }
}

/** Open file descriptors of `pid`, and its soft limit on them. */
function fileDescriptors(pid) {
  const limit = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return { open: readdirSync(`/proc/${pid}/fd`).length, limit: limit ? Number(limit[1]) : Infinity };
}

/**
 * Descriptors kept free in the gateway for everything else it holds (keep-alive upstreams, metrics, the
 * inspector). Node raises its soft open-file limit to the hard one as it starts, so the hard limit of
 * the shell that runs the bench is what bounds the streams a gateway can hold.
 */
const GATEWAY_FD_MARGIN = 100;

/**
 * `process.memoryUsage()` of a process of the system in MB (V8's heap, and the memory outside it), read
 * through its inspector, which sampleRss has opened.
 */
async function memoryUsage(serviceProcess) {
  const targets = await fetch(`http://127.0.0.1:${serviceProcess.inspectPort}/json/list`).then((r) => r.json());
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  const usage = await new Promise((resolveUsage, reject) => {
    socket.addEventListener('open', () =>
      socket.send(
        JSON.stringify({
          id: 1,
          method: 'Runtime.evaluate',
          params: { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true },
        }),
      ),
    );
    socket.addEventListener('message', (message) => {
      const { id, result } = JSON.parse(message.data);
      if (id === 1) resolveUsage(JSON.parse(result.result.value));
    });
    socket.addEventListener('error', () => reject(new Error(`inspector of ${serviceProcess.service} failed`)));
  });
  socket.close();
  const mb = (bytes) => +(bytes / 1024 / 1024).toFixed(1);
  return {
    heapUsedMb: mb(usage.heapUsed),
    heapTotalMb: mb(usage.heapTotal),
    externalMb: mb(usage.external),
    arrayBuffersMb: mb(usage.arrayBuffers),
  };
}

/**
 * `count` idle streams of as many users opened on `via` (the notifications instance directly, or the
 * gateway), then the RSS of every process as memory.mjs reads it (as left, and after a full GC), beside
 * the same just before they opened, and how much of it is V8's heap in the processes that hold them.
 * Through the gateway, which holds a socket per stream (its client's: the streams to one notifications
 * instance share one HTTP/2 connection), only as many as its open-file limit allows are opened; `wanted`
 * says how many were asked.
 */
export async function idleStreamMemory(system, pools, signToken, { count, via }) {
  let opening = count;
  let fdLimit;
  if (via === 'gateway') {
    const { open, limit } = fileDescriptors(system.process('gateway').pid);
    fdLimit = limit;
    opening = Math.min(count, limit - open - GATEWAY_FD_MARGIN);
  }
  const tokens = Array.from({ length: opening }, (_, i) =>
    signToken({ id: randomUUID(), username: `bench_idle_${i}` }),
  );
  const before = await sampleRss(system);
  const openStart = performance.now();
  const streams = await openStreams(`${system.urlOf(via)}${STREAM_PATH}`, tokens);
  const openSeconds = +((performance.now() - openStart) / 1000).toFixed(1);
  try {
    const { rows } = await pools.public.query('SELECT count(*)::int AS n FROM notifications.open_streams');
    const open = await sampleRss(system);
    const holders = via === 'gateway' ? ['gateway', 'notifications'] : ['notifications'];
    const heap = {};
    for (const service of holders) heap[`${service}#0`] = await memoryUsage(system.process(service));
    return {
      via,
      wanted: count,
      streams: streams.length,
      recorded: rows[0].n,
      openSeconds,
      fdLimit,
      streamsEnded: streams.filter((stream) => stream.ended).length,
      before,
      open,
      heap,
    };
  } finally {
    await closeStreams(streams, pools.public);
  }
}

/**
 * CPU per request of each of `CONDITIONAL_READS` answered 200 (no `If-None-Match`) and 304 (`If-None-Match`
 * set to the current ETag), directly and through the gateway: autocannon at a fixed `rate` for `seconds`
 * each (so both answers are measured at the same load), with every process's CPU read before and after
 * as cpu.mjs does (PostgreSQL: `postgresCpu`). `served` is what serves the request: the notifications
 * process, PostgreSQL and, through it, the gateway; the other processes and the load generator are in
 * the breakdown beside.
 */
export async function notModifiedCost(system, fixture, { database, rate, connections, seconds }) {
  const authorization = `Bearer ${fixture.viewer.token}`;
  const results = [];
  for (const [read, path] of Object.entries(CONDITIONAL_READS))
    for (const via of ['notifications', 'gateway']) {
      const url = `${system.urlOf(via)}${path}`;
      const first = await fetch(url, { headers: { authorization } });
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      if (first.status !== 200 || !etag) throw new Error(`GET ${url}: ${first.status}, ETag ${etag}`);
      for (const [status, headers] of [
        [200, { authorization }],
        [304, { authorization, 'if-none-match': etag }],
      ]) {
        const options = { url, headers, connections, overallRate: rate };
        await autocannon({ ...options, duration: 1 });
        const stopCpu = cpuMeter(system, database);
        const result = await autocannon({ ...options, duration: seconds });
        const answered = result.requests.total;
        const { perUnit: cpu, raw } = stopCpu(answered);
        // Summed before dividing, to more places than cpuPer rounds each part to.
        const served = ['notifications#0', 'postgres', ...(via === 'gateway' ? ['gateway#0'] : [])];
        const servedMs = served.reduce((sum, part) => sum + raw[part], 0);
        const wrong = Object.entries(result.statusCodeStats ?? {})
          .filter(([code]) => Number(code) !== status)
          .map(([code, { count }]) => `${code}×${count}`);
        results.push({
          read,
          status,
          via: via === 'gateway' ? 'gateway' : 'direct (notifications)',
          requestsPerSecond: Math.round(result.requests.average),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          answered,
          errors: result.errors + result.timeouts + (answered - (result.statusCodeStats?.[status]?.count ?? 0)),
          ...(wrong.length > 0 ? { errorKinds: wrong.join(' ') } : {}),
          cpuMsPerRequest: +(servedMs / answered).toFixed(3),
          cpu,
        });
      }
    }
  return results;
}
