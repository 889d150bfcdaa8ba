// Notifications for `npm run bench`: listing, unread count and mark-read for a user with a million
// unread notifications (written straight into the notifications schema), and the time from posting a
// comment with a mention to the mentioned user seeing it listed, over many mentions at a steady rate.
import autocannon from 'autocannon';
import pg from 'pg';
import { measure } from './measure.mjs';

const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? 1_000_000);
const MENTIONS = 1_000;
const MENTIONS_PER_SECOND = 50;
const MARKED_PER_REQUEST = 20;

async function call(url, { method = 'GET', token, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

const register = (urlOf, username) => call(`${urlOf('users')}/api/auth/register`, { method: 'POST', body: { username, password: 'bench password' } });

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** `NOTIFICATIONS` unread notifications for `recipientId` from `actorIds`, and their count; returns their ids, newest first. */
async function seed(databaseUrl, recipientId, actorIds) {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=notifications' });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id)
       SELECT gen_random_uuid(), $1, kind.type, ($2::uuid[])[1 + n % cardinality($2::uuid[])], kind.content_type, gen_random_uuid(),
              CASE WHEN kind.type LIKE 'mention\\_%' THEN gen_random_uuid() END,
              date_trunc('milliseconds', now()) - n * interval '1 second', gen_random_uuid()
         FROM generate_series(1, $3) AS n
         JOIN (VALUES (0, 'mention_recipe_comment', 'recipe'), (1, 'mention_collection_comment', 'collection'),
                      (2, 'mention_post_comment', 'post'), (3, 'tag_recipe', 'recipe'), (4, 'tag_post', 'post'))
              AS kind(k, type, content_type) ON kind.k = n % 5`,
      [recipientId, actorIds, NOTIFICATIONS],
    );
    await client.query(
      `INSERT INTO notification_counts (recipient_id, total, unread) VALUES ($1, $2, $2)
       ON CONFLICT (recipient_id) DO UPDATE SET total = notification_counts.total + $2, unread = notification_counts.unread + $2`,
      [recipientId, NOTIFICATIONS],
    );
    await client.query('VACUUM ANALYZE notifications, notification_counts');
    const { rows } = await client.query('SELECT id FROM notifications WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC', [recipientId]);
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

/** Waits until the service has handled every event earlier scenarios caused (a comment bench mentions a lot). */
async function eventsSettled(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=notifications' });
  await client.connect();
  try {
    let last = -1;
    for (let unchanged = 0; unchanged < 4; ) {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM processed_events');
      unchanged = rows[0].n === last ? unchanged + 1 : 0;
      last = rows[0].n;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await client.end();
  }
}

/**
 * PATCH /api/notifications/read, each request marking the next unread ids, so that every request writes;
 * the cursor carries on from one measurement to the next.
 */
function markReadMeasurer(ids, token) {
  let next = 0;
  const requests = [
    {
      method: 'PATCH',
      setupRequest: (request) => {
        const notificationIds = [];
        for (let i = 0; i < MARKED_PER_REQUEST; i++) notificationIds.push(ids[next++ % ids.length]);
        return { ...request, body: JSON.stringify({ notificationIds }) };
      },
    },
  ];
  return async (url, connections, durationSeconds) => {
    const options = { url, connections, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, requests };
    await autocannon({ ...options, duration: 2 });
    const result = await autocannon({ ...options, duration: durationSeconds });
    return {
      requestsPerSecond: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      // Past the seeded ids the same ones come round again, already read: say so rather than hide it.
      ...(next > ids.length ? { note: 'seeded ids used up: later requests changed nothing' } : {}),
    };
  };
}

/** Direct and through the gateway, at one connection (cost per request) and at `connections` (throughput). */
async function bothWays(name, urlOf, run, connections) {
  const rows = [];
  for (const load of [1, connections]) {
    const direct = await run(urlOf('notifications'), load);
    const gateway = await run(urlOf('gateway'), load);
    rows.push({ scenario: name, via: 'direct (notifications)', connections: load, ...direct });
    rows.push({
      scenario: name,
      via: 'gateway',
      connections: load,
      ...gateway,
      ...(load === 1 ? { overheadMs: +(1000 / gateway.requestsPerSecond - 1000 / direct.requestsPerSecond).toFixed(3) } : {}),
      throughputRatio: +(gateway.requestsPerSecond / direct.requestsPerSecond).toFixed(2),
    });
  }
  return rows;
}

/**
 * Comments on a fresh recipe mentioning one user, `MENTIONS_PER_SECOND` of them, while that user's first
 * page is listed again and again through the gateway: latency is from sending each comment to the first
 * listing that shows its notification.
 */
async function mentionLatency(urlOf) {
  const api = `${urlOf('gateway')}/api`;
  const [author, mentioned] = await Promise.all([register(urlOf, 'bench_mentioner'), register(urlOf, 'bench_mentionee')]);
  const { recipe } = await call(`${api}/recipes`, {
    method: 'POST',
    token: author.token,
    body: { title: 'Mention bench', cameraModel: 'X-T5', filmSimulation: 'Velvia' },
  });

  const firstSeen = new Map();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const { data } = await call(`${api}/notifications?limit=100`, { token: mentioned.token });
      const now = performance.now();
      for (const notification of data) if (!firstSeen.has(notification.commentId)) firstSeen.set(notification.commentId, now);
    }
  })();

  const sent = [];
  const start = performance.now() + 100;
  for (let i = 0; i < MENTIONS; i++) {
    const due = start + (i * 1000) / MENTIONS_PER_SECOND;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const sentAt = performance.now();
    const body = { content: `Mention ${i} for @${mentioned.user.username}` };
    sent.push(call(`${api}/recipes/${recipe.id}/comments`, { method: 'POST', token: author.token, body }).then(({ comment }) => ({ commentId: comment.id, sentAt })));
  }
  const comments = await Promise.all(sent);
  // Stragglers get ten seconds; one that never shows counts as an error.
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && comments.some(({ commentId }) => !firstSeen.has(commentId)); ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  watching = false;
  await watcher;

  const latencies = comments.filter(({ commentId }) => firstSeen.has(commentId)).map(({ commentId, sentAt }) => firstSeen.get(commentId) - sentAt);
  if (latencies.length === 0) throw new Error('no mention was listed within ten seconds');
  latencies.sort((a, b) => a - b);
  const [p50, p99] = [percentile(latencies, 50), percentile(latencies, 99)];
  const verdict = p99 < 100 && latencies.length === MENTIONS ? 'PASS' : 'MISS';
  console.log(`target: a mention is listed within 100 ms at p99: ${p99.toFixed(1)} ms ${verdict}`);
  return {
    scenario: `POST comment → mention listed (${MENTIONS} at ${MENTIONS_PER_SECOND}/s)`,
    via: 'gateway, end to end',
    connections: 1,
    p50Ms: +p50.toFixed(1),
    p99Ms: +p99.toFixed(1),
    maxMs: +latencies.at(-1).toFixed(1),
    errors: MENTIONS - latencies.length,
    target: `p99 < 100 ms ${verdict}`,
  };
}

/** The mention latency row, or a row saying why it was skipped. */
async function mentionLatencyRow({ urlOf, services }) {
  const missing = ['comments', 'content'].filter((service) => !services.includes(service));
  if (missing.length === 0) return mentionLatency(urlOf);
  const skipped = `skipped: ${missing.join(' and ')} service${missing.length > 1 ? 's' : ''} not built`;
  console.log(`POST comment → mention listed: ${skipped}`);
  return { scenario: 'POST comment → mention listed', via: 'gateway, end to end', note: skipped };
}

/** Every notifications measurement of the bench, as rows of its table. */
export async function notificationRows(system, { connections, durationSeconds }) {
  const { urlOf, databaseUrl } = system;
  await eventsSettled(databaseUrl);
  // The latency first: after the million-row seed and the mark-read runs, the database spends a while
  // flushing them, and every commit in the pipeline would wait on that rather than on the pipeline.
  const rows = [await mentionLatencyRow(system)];

  const actors = await Promise.all([1, 2, 3].map((n) => register(urlOf, `bench_actor_${n}`)));
  const { user, token } = await register(urlOf, 'bench_notified');
  const ids = await seed(databaseUrl, user.id, actors.map((actor) => actor.user.id));

  const headers = { authorization: `Bearer ${token}` };
  const unread = `${NOTIFICATIONS.toLocaleString('en')} unread`;
  const get = (path) => (base, load) => measure({ url: `${base}${path}`, headers, connections: load, durationSeconds });
  const markRead = markReadMeasurer(ids, token);
  rows.push(
    ...(await bothWays(`GET /api/notifications (${unread}, page 1)`, urlOf, get('/api/notifications'), connections)),
    ...(await bothWays(`GET /api/notifications/unread-count (${unread})`, urlOf, get('/api/notifications/unread-count'), connections)),
    ...(await bothWays(
      `PATCH /api/notifications/read (${MARKED_PER_REQUEST} unread ids each)`,
      urlOf,
      (base, load) => markRead(`${base}/api/notifications/read`, load, durationSeconds),
      connections,
    )),
  );
  return rows;
}
