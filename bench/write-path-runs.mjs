// The measurements of the bench's `writepath` part (bench/write-path.mjs), each on one way of serving the
// write path (a `side`): open-loop runs of mentioned comments timed to their streams, a capacity search
// of them, their CPU per comment, the same with a crowd of streams open, and round trips to PostgreSQL.
import { Agent } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';
import { cpuPer } from './cpu.mjs';
import { latencyFigures } from './mentions.mjs';
import { schedule, tally } from './open-loop.mjs';
import { CAPACITY_P99_MS, searchCapacity } from './overload.mjs';
import { openStreams } from './streams.mjs';

/** A notification not on its stream this long after the one before it counts as lost. */
const STRAGGLER_MS = 10_000;

/**
 * One way of serving the write path: where comments are posted and streams opened, the streams of the
 * mentioned users, when each comment's notification arrived on them, how to close streams opened there
 * (resolving once it has forgotten them), and how to sample the CPU of the processes that serve it.
 * `workload`: the mentioned users, their stream tokens, the authors' headers.
 */
export function side(name, { postUrl, streamUrl, workload, closeAll, cpuNow }) {
  const served = {
    name,
    postUrl,
    streamUrl,
    workload,
    arrivedAt: new Map(),
    duplicates: 0,
    streams: [],
    cpuNow,
  };
  served.open = async () => {
    served.streams = await openStreams(streamUrl(), workload.streamTokens, {
      onEvent: () => (event, at) => {
        if (event.event !== 'notification') return;
        const { commentId } = JSON.parse(event.data);
        if (served.arrivedAt.has(commentId)) served.duplicates += 1;
        else served.arrivedAt.set(commentId, at);
      },
    });
  };
  served.close = async () => {
    await closeAll(served.streams);
    served.streams = [];
  };
  return served;
}

/** Waits until every comment's notification is on its stream, or none has come for STRAGGLER_MS. */
async function allArrived(served, comments) {
  let arrived = -1;
  for (let lastProgress = performance.now(); performance.now() - lastProgress < STRAGGLER_MS; await pause(50)) {
    const now = comments.filter(({ commentId }) => served.arrivedAt.has(commentId)).length;
    if (now === comments.length) return;
    if (now > arrived) [arrived, lastProgress] = [now, performance.now()];
  }
}

/**
 * Open loop at `rate` for `seconds`: comment i by author i % 20, mentioning user i % 20; then its stragglers. The
 * POSTs' answers (open-loop.mjs `tally`), and from each comment's sending to its `event: notification`
 * (mentions.mjs `latencyFigures`: `errors` counts those that never arrived, failed POSTs included).
 * `workload` (the side's by default) may give each author a `postUrls` of its own; `createdIds` gets
 * the ids of the comments made.
 */
export async function mentionRun(served, { rate, seconds, workload = served.workload, createdIds = [] }) {
  const agent = new Agent({ keepAlive: true }); // closed after, as every phase closes its own
  const sentAt = [];
  const { mentioned, authorHeaders, postUrls } = workload;
  const next = (i) => {
    sentAt[i] = performance.now();
    const author = i % authorHeaders.length;
    const body = JSON.stringify({ content: `Write path ${i} for @${mentioned[i % mentioned.length].username}` });
    return {
      method: 'POST',
      url: postUrls?.[author] ?? served.postUrl,
      headers: authorHeaders[author],
      body,
      keepBody: true,
    };
  };
  const duplicatesBefore = served.duplicates;
  try {
    const { sentPerSecond, answers } = await schedule(next, [{ rate, seconds }], { agent });
    const comments = answers.flatMap((answer, i) =>
      answer.status === 201 ? [{ commentId: JSON.parse(answer.body).comment.id, sentAt: sentAt[i] }] : [],
    );
    createdIds.push(...comments.map((c) => c.commentId));
    await allArrived(served, comments);
    return {
      ...latencyFigures(comments, served.arrivedAt, answers.length, sentPerSecond[0]),
      created: comments.length,
      duplicates: served.duplicates - duplicatesBefore,
      posts: tally(answers),
    };
  } finally {
    agent.destroy();
  }
}

/**
 * What ended a capacity search: the lowest rate above the capacity whose step failed (both its tries),
 * and on what: `latency` (p99 at or over the bound, or the load generator behind), else `refusals` (503 or
 * 429 while p99 was under it), else `lost` (a notification not on its stream, or on it twice, or another
 * failed POST).
 */
export function capacityBound(steps, capacity) {
  const failedAbove = steps.filter((step) => !step.pass && step.rate > capacity);
  if (failedAbove.length === 0) return { by: null, figure: 'no step failed' };
  const rate = Math.min(...failedAbove.map((step) => step.rate));
  const ending = failedAbove.filter((step) => step.rate === rate);
  const onLatency = (step) =>
    step.p99Ms === null || step.p99Ms >= CAPACITY_P99_MS || step.sentPerSecond < 0.95 * step.rate;
  const by = ending.some(onLatency)
    ? 'latency'
    : ending.some((step) => step.refused + step.tooMany > 0)
      ? 'refusals'
      : 'lost';
  const figure = `${rate}/s: ${ending
    .map(
      (step) =>
        `p99 ${step.p99Ms} ms, ${step.refused} 503, ${step.tooMany} 429, ${step.timeouts + step.other} other ` +
        `failures, ${step.notArrived} not on the stream, ${step.duplicates} twice`,
    )
    .join('; then ')}`;
  return { by, figure };
}

/** `searchCapacity` with steps of `mentionRun`; each step's figures, and what ended the search. */
export async function capacityOf(served, { start, stepSeconds, factor, refineSteps }) {
  const steps = [];
  const step = async (rate) => {
    const run = await mentionRun(served, { rate, seconds: stepSeconds });
    const pass =
      run.errors === 0 &&
      run.duplicates === 0 &&
      run.posts.ok === run.posts.answers &&
      run.p99Ms !== null &&
      run.p99Ms < CAPACITY_P99_MS &&
      run.requestsPerSecond >= 0.95 * rate;
    const { answers, ok, refused, tooMany, timeouts, other, admitted } = run.posts;
    const notArrived = run.errors - (answers - ok);
    steps.push({
      rate,
      pass,
      sentPerSecond: run.requestsPerSecond,
      p50Ms: run.p50Ms,
      p99Ms: run.p99Ms,
      postP99Ms: admitted.p99,
      refused,
      tooMany,
      timeouts,
      other,
      notArrived,
      duplicates: run.duplicates,
    });
    console.log(
      `    ${served.name} at ${rate}/s: ${pass ? 'pass' : 'fail'} (to the stream p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms; POST p99 ${admitted.p99} ms;` +
        ` ${refused} 503, ${tooMany} 429, ${timeouts} timeouts, ${other} others; ${notArrived} created not on the stream; sent at ${run.requestsPerSecond}/s)`,
    );
    return pass;
  };
  const capacity = await searchCapacity(step, { start, factor, refineSteps });
  return { capacity, steps, endedBy: capacityBound(steps, capacity) };
}

/**
 * A `mentionRun` with the CPU each process spent from its first comment to its last notification, per
 * comment; before it, what each spends a second idle, over `idleSeconds` without comments. With
 * `settled(commentIds)`, the CPU is sampled once that resolves (with what it gives as `notifications`):
 * the notifications not on the streams stored too.
 */
export async function cpuRun(served, { idleSeconds, settled, ...options }) {
  const [idleFrom, idleOwn, idleStart] = [served.cpuNow(), process.cpuUsage(), performance.now()];
  await pause(idleSeconds * 1000);
  const [before, own] = [served.cpuNow(), process.cpuUsage()];
  const idleCpu = cpuPer((performance.now() - idleStart) / 1000, idleFrom, before, process.cpuUsage(idleOwn));
  const createdIds = [];
  const { posts: _posts, ...run } = await mentionRun(served, { ...options, createdIds });
  const notifications = settled ? await settled(createdIds) : undefined;
  return {
    ...run,
    cpu: cpuPer(run.sent, before, served.cpuNow(), process.cpuUsage(own)),
    idleCpu,
    ...(settled ? { notifications } : {}),
  };
}

/**
 * A `mentionRun` at each of `rates` with `tokens.length` more streams open (of users nobody mentions) where
 * the side opens its streams, all closed after (the side's own stay open): the chain's latency with a crowd
 * of listeners.
 */
export async function crowdedRuns(served, { tokens, rates, seconds }) {
  const crowd = await openStreams(served.streamUrl(), tokens);
  try {
    // A second of comments first, as after any change of the system: the crowd's streams have just
    // opened (each with its catch-up read), and the first run would time their settling.
    await mentionRun(served, { rate: rates[0], seconds: 1 });
    const runs = [];
    for (const rate of rates) {
      const { posts: _posts, ...run } = await mentionRun(served, { rate, seconds });
      runs.push({ ...run, rate, streams: crowd.length + served.streams.length });
    }
    return runs;
  } finally {
    for (const stream of crowd) stream.close();
  }
}

const perComment = (count, comments) => +(count / comments).toFixed(2);

/**
 * Round trips per mentioned comment by part (of `parts`) and by statement: those of a run of `seconds` at
 * `rate`, less what each part sent in as long idle just before (after a second of comments to fill caches
 * and prepare statements on the fresh connections).
 */
export async function roundTrips(served, counter, parts, { rate, seconds }) {
  await mentionRun(served, { rate, seconds: 1 });
  counter.take();
  await pause(seconds * 1000);
  const idle = counter.take();
  const run = await mentionRun(served, { rate, seconds });
  const busy = counter.take();
  const idleShare = busy.seconds / idle.seconds;
  const statements = [];
  const byPart = {};
  const idlePerSecond = {};
  for (const part of parts) {
    const [during, before] = [busy.counts[part] ?? {}, idle.counts[part] ?? {}];
    let sum = 0;
    for (const text of new Set([...Object.keys(during), ...Object.keys(before)])) {
      const net = (during[text] ?? 0) - (before[text] ?? 0) * idleShare;
      sum += net;
      if (Math.abs(net / run.created) >= 0.01)
        statements.push({ part, perComment: perComment(net, run.created), statement: text });
    }
    byPart[part] = perComment(sum, run.created);
    idlePerSecond[part] = +(Object.values(before).reduce((total, n) => total + n, 0) / idle.seconds).toFixed(1);
  }
  statements.sort((a, b) => a.part.localeCompare(b.part) || b.perComment - a.perComment);
  const total = +Object.values(byPart)
    .reduce((all, n) => all + n, 0)
    .toFixed(2);
  return {
    comments: run.created,
    errors: run.errors,
    seconds: +busy.seconds.toFixed(1),
    byPart,
    total,
    idlePerSecond,
    statements,
  };
}
