import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, apiOf, databaseOf, settlesAt, unlimited } from './faults/support.js';
import { expectProblem } from './support/http.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Overload (docs/api.md §1, docs/architecture.md "Overload"): a gateway that lets two requests of a kind
 * at a time reach a service. A crowd of comments at once: the excess is refused at once with 503 and
 * `Retry-After`, before it reaches the service; what is admitted is served; a client that honours
 * `Retry-After` and sends the same `Idempotency-Key` again gets every comment posted once and notified once.
 */
const CROWD = 60;
const LIMIT = '2';

let system: TestSystem;
let db: ReturnType<typeof databaseOf>;
beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_overload',
    portOffset: 5300,
    env: { ...unlimited, ADMISSION_INITIAL_LIMIT: LIMIT, ADMISSION_MIN_LIMIT: LIMIT, ADMISSION_MAX_LIMIT: LIMIT },
  });
  db = databaseOf(system);
}, 90_000);
afterAll(async () => {
  await db?.close();
  await system?.stop();
});

interface Attempt {
  status: number;
  ms: number;
  retryAfter: string | null;
}

describe('a crowd above what the gateway admits', () => {
  it('is refused at once with Retry-After, loses nothing admitted, and a client honouring Retry-After gets every comment posted once', async () => {
    const api = apiOf(system);
    const gateway = system.urlOf('gateway');
    const ada = await api.register('overload_ada');
    const mentioned: Account[] = [];
    for (let i = 0; i < 5; i += 1) mentioned.push(await api.register(`overload_${i}`));
    const recipeId = await api.recipe(ada);

    const post = async (n: number): Promise<Attempt> => {
      const startedAt = performance.now();
      const reply = await api.call('POST', `/recipes/${recipeId}/comments`, { content: `@${mentioned[n % 5]!.user.username} (${n})` }, ada.token, {
        'idempotency-key': `overload-${n}`,
      });
      const attempt = { status: reply.status, ms: performance.now() - startedAt, retryAfter: reply.headers.get('retry-after') };
      if (reply.status === 503) {
        expectProblem(reply.raw, 503, `comment ${n}`);
        expect(reply.body.detail).toMatch(/capacity/);
      }
      return attempt;
    };

    // All at once, with the health of the system asked meanwhile: never refused by admission control.
    const [first, health] = await Promise.all([Promise.all(Array.from({ length: CROWD }, (_, n) => post(n))), fetch(`${gateway}/health`)]);
    expect(health.status).toBe(200);
    const refused = first.filter((attempt) => attempt.status === 503);
    const admitted = first.filter((attempt) => attempt.status === 201);
    expect(refused.length + admitted.length, JSON.stringify(first.map((attempt) => attempt.status))).toBe(CROWD);
    expect(refused.length).toBeGreaterThan(0);
    expect(admitted.length).toBeGreaterThan(0);
    for (const attempt of refused) expect(Number(attempt.retryAfter)).toBeGreaterThanOrEqual(1);
    // Refused at the gateway, before the service: no comment of theirs exists, and they were answered sooner.
    expect(await db.count('SELECT count(*)::int AS count FROM comments.comments')).toBe(admitted.length);
    // Counted where an operator would look.
    const metrics = await (await fetch(`${system.process('gateway')!.metricsUrl}/metrics`)).text();
    expect(metrics).toContain(`recipes_admission_refused_total{service="comments",class="write"} ${refused.length}`);
    expect(metrics).toMatch(/recipes_admission_limit\{service="comments",class="write"\} 2\b/);
    const median = (attempts: Attempt[]) => [...attempts.map((attempt) => attempt.ms)].sort((a, b) => a - b)[Math.floor(attempts.length / 2)]!;
    expect(median(refused)).toBeLessThan(median(admitted));

    // The client honours Retry-After (with a little jitter, as clients should), with the same key each time,
    // until every comment is posted.
    let retries = 0;
    await Promise.all(
      first.map(async (attempt, n) => {
        let latest = attempt;
        while (latest.status === 503) {
          retries += 1;
          expect(retries, 'retries').toBeLessThan(20 * CROWD);
          await new Promise((resolve) => setTimeout(resolve, Number(latest.retryAfter) * 1000 * (1 + Math.random())));
          latest = await post(n);
          expect([201, 503]).toContain(latest.status);
        }
      }),
    );

    // Once each: every comment, and every mention's notification.
    expect(await db.count('SELECT count(*)::int AS count FROM comments.comments')).toBe(CROWD);
    expect(await db.count('SELECT count(DISTINCT content)::int AS count FROM comments.comments')).toBe(CROWD);
    await settlesAt(() => db.count('SELECT count(*)::int AS count FROM notifications.notifications'), CROWD, { timeoutMs: 20_000 });
    for (const user of mentioned) expect(await api.unreadCount(user)).toBe(CROWD / 5);
  }, 120_000);
});
