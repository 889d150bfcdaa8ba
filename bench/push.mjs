// Web Push through the sender (docs/api.md §11.3), the bench's `push` part: 20 authors each comment on
// their own recipe mentioning one of 20 users, at a fixed rate, first while nobody holds a push
// subscription, then (same rate, same run) with one subscription per mentioned user at the local push
// service (libs/testing/src/push-service.ts, in this process: it checks VAPID and decrypts each push).
// For each: the system's CPU ms per mentioned comment (cpu.mjs, from the first POST until every
// notification is stored, and with subscriptions until every push came); with subscriptions, pushes
// received a second and the time from each POST's sending to its push's arrival.
import { Agent } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';
import { startLocalPushService } from '@recipes/testing/push-service';
import { notificationsOf, recipesOf } from './authors.mjs';
import { cpuPer, cpuSample } from './cpu.mjs';
import { latencyFigures } from './mentions.mjs';
import { schedule, tally } from './open-loop.mjs';

const MENTIONED_USERS = 20;
const AUTHORS = 20;
/** A push not come this long after the one before it counts as lost. */
const STRAGGLER_MS = 10_000;

const json = (token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

async function api(url, { method = 'GET', token, body, expect = [200, 201] } = {}) {
  const response = await fetch(url, {
    method,
    headers: token ? json(token) : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!expect.includes(response.status)) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Resolves once `count()` reaches `expected`, or has not grown for STRAGGLER_MS. */
async function untilCount(count, expected) {
  let [seen, grewAt] = [-1, performance.now()];
  for (;;) {
    const now = count();
    if (now >= expected) return;
    if (now > seen) [seen, grewAt] = [now, performance.now()];
    else if (performance.now() - grewAt > STRAGGLER_MS) return;
    await pause(50);
  }
}

/**
 * One fixed-rate run of mentioned comments (comment i by author i % 20 on their own recipe, mentioning
 * user i % 20), with the system's CPU per comment until `settled(commentIds)` resolves.
 */
async function mentionRun({ system, database, posts, mentioned, rate, seconds, settled }) {
  const agent = new Agent({ keepAlive: true });
  const sentAt = [];
  const next = (i) => {
    sentAt[i] = Date.now();
    const { url, headers } = posts[i % posts.length];
    return {
      method: 'POST',
      url,
      headers,
      body: JSON.stringify({ content: `Push ${i} for @${mentioned[i % mentioned.length].username}` }),
      keepBody: true,
    };
  };
  const [before, own] = [cpuSample(system, { database }), process.cpuUsage()];
  try {
    const { sentPerSecond, answers } = await schedule(next, [{ rate, seconds }], { agent });
    const comments = answers.flatMap((answer, i) =>
      answer.status === 201 ? [{ commentId: JSON.parse(answer.body).comment.id, sentAt: sentAt[i] }] : [],
    );
    await settled(comments);
    const cpu = cpuPer(answers.length, before, cpuSample(system, { database }), process.cpuUsage(own));
    // The local push service decrypts in this process: the system's share leaves the load generator out.
    const systemMs = +(cpu.total - cpu['load generator']).toFixed(2);
    return { comments, sent: answers.length, sentPerSecond: sentPerSecond[0], posts: tally(answers), cpu, systemMs };
  } finally {
    agent.destroy();
  }
}

/**
 * The `push` part on `system` (seeded: the people of seed.mjs; Web Push on, endpoints on loopback
 * allowed), whose database is `database`; tokens from `signToken`. Both runs at `rate` for `seconds`,
 * `idleSeconds` apart.
 */
export async function pushCost({ system, pools, signToken, database, rate, seconds, idleSeconds }) {
  const gateway = `${system.urlOf('gateway')}/api`;
  const { rows } = await pools.public.query('SELECT k, id FROM bench_people ORDER BY k LIMIT $1', [
    MENTIONED_USERS + AUTHORS,
  ]);
  const people = rows.map(({ k, id }) => ({ id, username: `bench_user_${k}` }));
  const mentioned = people.slice(0, MENTIONED_USERS);
  const authorHeaders = people.slice(MENTIONED_USERS).map((user) => json(signToken(user)));
  const recipeIds = await recipesOf(system.urlOf('gateway'), pools.public, authorHeaders);
  const posts = recipeIds.map((id, n) => ({ url: `${gateway}/recipes/${id}/comments`, headers: authorHeaders[n] }));
  const stored = (comments) =>
    notificationsOf(
      pools.public,
      comments.map((c) => c.commentId),
      comments.length,
    );

  const service = await startLocalPushService();
  const subscribed = [];
  try {
    const none = await mentionRun({ system, database, posts, mentioned, rate, seconds, settled: stored });

    const { publicKey } = await api(`${gateway}/push/public-key`);
    for (const user of mentioned) {
      const token = signToken(user);
      const subscription = service.subscribe(publicKey);
      const { subscription: made } = await api(`${gateway}/push/subscriptions`, {
        method: 'POST',
        token,
        body: { endpoint: subscription.endpoint, keys: subscription.keys },
      });
      subscribed.push({ token, id: made.id, local: subscription.id });
    }
    const pushedAt = new Map();
    let duplicates = 0;
    const received = () => {
      for (const { local } of subscribed) {
        for (const push of service.received(local)) {
          const { commentId } = push.payload.notification;
          if (!pushedAt.has(commentId)) pushedAt.set(commentId, push.receivedAt);
        }
      }
      return pushedAt.size;
    };
    await pause(idleSeconds * 1000);
    const withPush = await mentionRun({
      system,
      database,
      posts,
      mentioned,
      rate,
      seconds,
      settled: async (comments) => {
        await stored(comments);
        await untilCount(received, pushedAt.size + comments.length);
      },
    });
    const pushes = withPush.comments.filter(({ commentId }) => pushedAt.has(commentId));
    const firstSent = Math.min(...withPush.comments.map((c) => c.sentAt));
    const lastPushed = Math.max(...pushes.map((c) => pushedAt.get(c.commentId)));
    for (const { local } of subscribed) duplicates += service.received(local).length;
    duplicates -= pushedAt.size;
    return {
      rate,
      none: { sent: none.sent, created: none.comments.length, cpu: none.cpu, systemMs: none.systemMs },
      withPush: {
        ...latencyFigures(withPush.comments, pushedAt, withPush.sent, withPush.sentPerSecond),
        created: withPush.comments.length,
        pushed: pushes.length,
        duplicates,
        pushesPerSecond: pushes.length === 0 ? 0 : +(pushes.length / ((lastPushed - firstSent) / 1000)).toFixed(1),
        attempts: subscribed.reduce((sum, s) => sum + service.attempts(s.local), 0),
        violations: service.violations.length,
        cpu: withPush.cpu,
        systemMs: withPush.systemMs,
      },
    };
  } finally {
    for (const { token, id } of subscribed)
      await api(`${gateway}/push/subscriptions/${id}`, { method: 'DELETE', token, expect: [200, 204, 404] }).catch(
        () => undefined,
      );
    await service.close();
  }
}
