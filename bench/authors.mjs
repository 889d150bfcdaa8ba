// A recipe of each of some authors, made through the gateway, for parts that comment on an author's
// own recipe (no `comment_recipe` notification) or on another author's (one more).
import { until } from './seed.mjs';

/**
 * Makes one recipe for each of `authorHeaders` (each its author's `authorization` and `content-type`)
 * through the gateway at `gatewayUrl`, waits until the comments service knows them all (it learns of
 * recipes from events) and gives their ids in the same order.
 */
export async function recipesOf(gatewayUrl, pool, authorHeaders) {
  const ids = [];
  for (const [n, headers] of authorHeaders.entries()) {
    const response = await fetch(`${gatewayUrl}/api/recipes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: `Bench author recipe ${n}`, cameraModel: 'X-T5', filmSimulation: 'Acros' }),
    });
    if (response.status !== 201)
      throw new Error(`an author's recipe was answered ${response.status}: ${await response.text()}`);
    ids.push((await response.json()).recipe.id);
  }
  await until("the authors' recipes to reach the comments service", async () => {
    const { rows } = await pool.query(
      'SELECT count(*)::int AS n FROM comments.content_items WHERE id = ANY($1::uuid[])',
      [ids],
    );
    return rows[0].n === ids.length;
  });
  return ids;
}

/**
 * Resolves with how many notifications `commentIds` caused once that count reaches `expected` or has not grown for
 * `quietMs`.
 */
export async function notificationsOf(pool, commentIds, expected, quietMs = 3_000) {
  let [count, grewAt] = [-1, Date.now()];
  for (;;) {
    const { rows } = await pool.query(
      'SELECT count(*)::int AS n FROM notifications.notifications WHERE comment_id = ANY($1::uuid[])',
      [commentIds],
    );
    if (rows[0].n >= expected) return rows[0].n;
    if (rows[0].n > count) [count, grewAt] = [rows[0].n, Date.now()];
    else if (Date.now() - grewAt > quietMs) return count;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
