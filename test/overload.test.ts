import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, apiOf, databaseOf, notificationsCount, settlesAt, unlimited } from './faults/support.js';
import { expectProblem } from './support/http.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Overload (docs/api.md §1, docs/architecture.md "Overload"), with a gateway that lets two requests of a
 * kind at a time reach a service. A crowd of comments at once on an idle system is a burst, not overload:
 * every one waits its turn and is served. Comments offered faster than the service serves them, for
 * longer than a burst lasts, make a queue that stands: the excess is refused soon after it arrives with
 * 503 and `Retry-After`, before it reaches the service; what is admitted is served; a client that honours
 * `Retry-After` and sends the same `Idempotency-Key` again gets every comment posted once and notified once.
 */
const BURST = 60;
const LIMIT = '2';
/** Offered open loop: about four times what two in flight serve here, for about two seconds. */
const OFFERED_PER_SECOND = 250;
const OFFERED = 500;

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

const commentsCount = 'SELECT count(*)::int AS count FROM comments.comments';

describe('admission control', () => {
  let api: ReturnType<typeof apiOf>;
  let ada: Account;
  let recipeId: string;
  const mentioned: Account[] = [];
  beforeAll(async () => {
    api = apiOf(system);
    ada = await api.register('overload_ada');
    for (let i = 0; i < 5; i += 1) mentioned.push(await api.register(`overload_${i}`));
    recipeId = await api.recipe(ada);
  });

  const post = async (n: number): Promise<Attempt> => {
    const startedAt = performance.now();
    const reply = await api.call(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `@${mentioned[n % 5]!.user.username} (${n})` },
      ada.token,
      {
        'idempotency-key': `overload-${n}`,
      },
    );
    const attempt = {
      status: reply.status,
      ms: performance.now() - startedAt,
      retryAfter: reply.headers.get('retry-after'),
    };
    if (reply.status === 503) {
      expectProblem(reply.raw, 503, `comment ${n}`);
      expect(reply.body.detail).toMatch(/capacity/);
    }
    return attempt;
  };

  it('serves a burst far above the limit on an idle system: every request waits its turn, none is refused', async () => {
    const gateway = system.urlOf('gateway');
    // All at once, with the health of the system asked meanwhile: never held up by admission control.
    const [burst, health] = await Promise.all([
      Promise.all(Array.from({ length: BURST }, (_, n) => post(n))),
      fetch(`${gateway}/health`),
    ]);
    expect(health.status).toBe(200);
    expect(burst.map((attempt) => attempt.status)).toEqual(Array.from({ length: BURST }, () => 201));
    expect(await db.count(commentsCount)).toBe(BURST);
    // Two at a time: most of them waited in the gateway's queue, which is empty again.
    const metrics = await (await fetch(`${system.process('gateway')!.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/recipes_admission_limit\{service="comments",class="write"\} 2\b/);
    expect(metrics).toMatch(/recipes_admission_waiting\{service="comments",class="write"\} 0\b/);
    expect(metrics).not.toMatch(/recipes_admission_refused_total\{service="comments"/);
    await settlesAt(() => db.count(notificationsCount), BURST, { timeoutMs: 20_000 });
  }, 60_000);

  it(
    'cuts a queue that stands: refused soon with Retry-After, nothing admitted ' +
      'lost, and a client honouring Retry-After gets every comment posted once',
    async () => {
      // Open loop: each comment leaves on its schedule, whatever became of the ones before.
      const offered = Array.from({ length: OFFERED }, (_, i) => BURST + i);
      const first = await Promise.all(
        offered.map(async (n, i) => {
          await new Promise((resolve) => setTimeout(resolve, (i * 1_000) / OFFERED_PER_SECOND));
          return post(n);
        }),
      );
      const refused = first.filter((attempt) => attempt.status === 503);
      const admitted = first.filter((attempt) => attempt.status === 201);
      expect(refused.length + admitted.length, JSON.stringify(first.map((attempt) => attempt.status))).toBe(OFFERED);
      expect(refused.length).toBeGreaterThan(0);
      expect(admitted.length).toBeGreaterThan(0);
      for (const attempt of refused) expect(Number(attempt.retryAfter)).toBeGreaterThanOrEqual(1);
      // Refused at the gateway, before the service: no comment of theirs exists, and they were answered sooner.
      expect(await db.count(commentsCount)).toBe(BURST + admitted.length);
      const metrics = await (await fetch(`${system.process('gateway')!.metricsUrl}/metrics`)).text();
      // Refused by the comments' queue, or before routing while the gateway's own loop was behind.
      const counted = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? 0);
      const queued = counted(/^recipes_admission_refused_total\{service="comments",class="write"\} (\d+)$/m);
      const shed = counted(/^recipes_gateway_shed_total (\d+)$/m);
      expect(queued + shed, metrics.match(/^recipes_(admission_refused|gateway_shed)_total.*$/gm)?.join('\n')).toBe(
        refused.length,
      );
      expect(queued).toBeGreaterThan(0);
      const median = (attempts: Attempt[]) =>
        [...attempts.map((attempt) => attempt.ms)].sort((a, b) => a - b)[Math.floor(attempts.length / 2)]!;
      expect(median(refused)).toBeLessThan(median(admitted));

      // The client honours Retry-After (with a little jitter, as clients should), with the same key each time,
      // until every comment is posted.
      let retries = 0;
      await Promise.all(
        first.map(async (attempt, i) => {
          let latest = attempt;
          while (latest.status === 503) {
            retries += 1;
            expect(retries, 'retries').toBeLessThan(20 * OFFERED);
            await new Promise((resolve) => setTimeout(resolve, Number(latest.retryAfter) * 1000 * (1 + Math.random())));
            latest = await post(offered[i]!);
            expect([201, 503]).toContain(latest.status);
          }
        }),
      );

      // Once each: every comment, and every mention's notification.
      const total = BURST + OFFERED;
      expect(await db.count(commentsCount)).toBe(total);
      expect(await db.count('SELECT count(DISTINCT content)::int AS count FROM comments.comments')).toBe(total);
      await settlesAt(() => db.count(notificationsCount), total, { timeoutMs: 30_000 });
      for (const user of mentioned) expect(await api.unreadCount(user)).toBe(total / 5);
    },
    120_000,
  );
});
