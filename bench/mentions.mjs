// From a comment that mentions someone to that person's notification: comments posted through the
// gateway at a steady rate, each mentioning the same user, and the time from sending each one until its
// notification is committed (and so listed: the listing reads the same table). A trigger the bench adds
// to the notifications table sends the comment id with NOTIFY, which PostgreSQL delivers at commit, so
// nothing polls the database while it is measured.
import { Agent, request } from 'node:http';
import { percentile } from './measure.mjs';

const CHANNEL = 'bench_mention_stored';

/** Calls `onStored(commentId)` as each notification of `recipientId` commits, until the returned stop. */
async function watchNotifications(pool, recipientId, onStored) {
  await pool.query(`
    CREATE OR REPLACE FUNCTION bench_mention_stored() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('${CHANNEL}', NEW.comment_id::text); RETURN NULL; END $$`);
  await pool.query(`
    CREATE OR REPLACE TRIGGER bench_mention_stored AFTER INSERT ON notifications
    FOR EACH ROW WHEN (NEW.recipient_id = '${recipientId}') EXECUTE FUNCTION bench_mention_stored()`);
  const listener = await pool.connect();
  listener.on('notification', ({ payload }) => onStored(payload));
  await listener.query(`LISTEN ${CHANNEL}`);
  return async () => {
    await listener.query(`UNLISTEN ${CHANNEL}`);
    listener.release();
    await pool.query('DROP TRIGGER bench_mention_stored ON notifications');
    await pool.query('DROP FUNCTION bench_mention_stored()');
  };
}

/**
 * POSTs `body` with `agent` (node:http rather than fetch: the load generator shares the two cores with
 * the system, and costs less so); resolves with the comment's id, or undefined when the request failed.
 * A phase destroys its agent as it ends: the gateway would otherwise go on holding its keep-alive
 * connections (a socket and a parser each) into the phases after, whose memory they would blur.
 */
export function postComment(agent, url, headers, body) {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve(response.statusCode === 201 ? JSON.parse(Buffer.concat(chunks)).comment.id : undefined),
      );
      response.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}

/** `rate` comments a second for `seconds` on the viewer's recipe, each mentioning the friend. */
export async function mentionLatency({ urlOf }, pools, fixture, { rate, seconds }) {
  const url = `${urlOf('gateway')}/api/recipes/${fixture.recipeId}/comments`;
  const headers = { authorization: `Bearer ${fixture.viewer.token}`, 'content-type': 'application/json' };
  const total = Math.round(rate * seconds);

  const storedAt = new Map();
  const stopWatching = await watchNotifications(pools.notifications, fixture.friend.user.id, (commentId) => {
    if (!storedAt.has(commentId)) storedAt.set(commentId, performance.now());
  });

  const agent = new Agent({ keepAlive: true });
  const sent = [];
  const start = performance.now() + 100;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sentAt = performance.now();
    const body = JSON.stringify({ content: `Mention ${i} for @${fixture.friend.user.username}` });
    sent.push(postComment(agent, url, headers, body).then((commentId) => commentId && { commentId, sentAt }));
  }
  const achievedRate = total / ((performance.now() - start) / 1000);
  const comments = (await Promise.all(sent)).filter((comment) => comment !== undefined);
  agent.destroy();
  const failed = total - comments.length;
  // Stragglers get ten seconds; one never stored counts as an error.
  for (
    const deadline = Date.now() + 10_000;
    Date.now() < deadline && comments.some(({ commentId }) => !storedAt.has(commentId));
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stopWatching();

  return { ...latencyFigures(comments, storedAt, total, achievedRate), failedPosts: failed };
}

/**
 * What a fixed-rate run of `total` comments came to: the rate achieved, the latency percentiles of those
 * that arrived (`arrivedAt` by comment id), and how many never did.
 */
export function latencyFigures(comments, arrivedAt, total, achievedRate) {
  const latencies = comments
    .filter(({ commentId }) => arrivedAt.has(commentId))
    .map(({ commentId, sentAt }) => arrivedAt.get(commentId) - sentAt);
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(achievedRate),
    p50Ms: latencies.length ? +percentile(latencies, 50).toFixed(1) : null,
    p99Ms: latencies.length ? +percentile(latencies, 99).toFixed(1) : null,
    p999Ms: latencies.length ? +percentile(latencies, 99.9).toFixed(1) : null,
    maxMs: latencies.length ? +latencies.at(-1).toFixed(1) : null,
    errors: total - latencies.length,
    sent: total,
  };
}
