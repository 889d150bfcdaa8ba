// From a comment that mentions someone to that person's notification: comments posted through the
// gateway at a steady rate, each mentioning the same user, and the time from sending each one until its
// notification is stored (and so listed: the listing reads the same table), watched every few ms in SQL.
import { percentile } from './measure.mjs';

const WATCH_EVERY_MS = 5;

/** `rate` comments a second for `seconds` on the viewer's recipe, each mentioning the friend. */
export async function mentionLatency({ urlOf }, pools, fixture, { rate, seconds }) {
  const url = `${urlOf('gateway')}/api/recipes/${fixture.recipeId}/comments`;
  const headers = { authorization: `Bearer ${fixture.viewer.token}`, 'content-type': 'application/json' };
  const recipient = fixture.friend.user.id;
  const total = Math.round(rate * seconds);

  const storedAt = new Map();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const { rows } = await pools.notifications.query(
        'SELECT comment_id FROM notifications WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1000',
        [recipient],
      );
      const now = performance.now();
      for (const { comment_id: commentId } of rows) if (!storedAt.has(commentId)) storedAt.set(commentId, now);
      await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
    }
  })();

  let failed = 0;
  const sent = [];
  const start = performance.now() + 100;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sentAt = performance.now();
    const body = JSON.stringify({ content: `Mention ${i} for @${fixture.friend.user.username}` });
    sent.push(
      fetch(url, { method: 'POST', headers, body })
        .then(async (response) => (response.ok ? { commentId: (await response.json()).comment.id, sentAt } : undefined))
        .catch(() => undefined),
    );
  }
  const achievedRate = total / ((performance.now() - start) / 1000);
  const comments = (await Promise.all(sent)).filter((comment) => comment !== undefined);
  failed = total - comments.length;
  // Stragglers get ten seconds; one never stored counts as an error.
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && comments.some(({ commentId }) => !storedAt.has(commentId)); ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  watching = false;
  await watcher;

  const latencies = comments.filter(({ commentId }) => storedAt.has(commentId)).map(({ commentId, sentAt }) => storedAt.get(commentId) - sentAt);
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(achievedRate),
    p50Ms: latencies.length ? +percentile(latencies, 50).toFixed(1) : null,
    p99Ms: latencies.length ? +percentile(latencies, 99).toFixed(1) : null,
    maxMs: latencies.length ? +latencies.at(-1).toFixed(1) : null,
    errors: total - latencies.length,
    failedPosts: failed,
    sent: total,
  };
}
