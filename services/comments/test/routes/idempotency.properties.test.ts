import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommentsHarness, commentsHarness } from '../support.js';

/**
 * Retries with Idempotency-Keys, as clients send them: random keys from a small set, random bodies and
 * targets from small sets, some requests at once and some one after another. Whatever the interleaving,
 * each (caller, key) makes exactly one comment (and its mention events), every replay is the first
 * response exactly, 422 comes exactly when the request differs from the first, and 409 only while
 * another request with the key is running.
 */
const SEED = Number(process.env.IDEMPOTENCY_SEED ?? 20_260_401);
const RUNS = 100;

let harness: CommentsHarness;
let callers: { id: string; token: string }[];
beforeAll(async () => {
  harness = await commentsHarness({ COMMENT_LIMIT_PER_MINUTE: '1000000', NOTIFICATION_BUDGET_PER_HOUR: '1000000' });
  callers = ['prop_ada', 'prop_bob'].map((name) => {
    const { user, token } = harness.register(name);
    return { id: user.id, token };
  });
  harness.register('prop_carol');
});
afterAll(() => harness?.close());

const BODIES = ['Lovely light', 'What do you think, @prop_carol?'];
const mentions = (body: number) => (BODIES[body]!.includes('@prop_carol') ? 1 : 0);

interface Request {
  caller: number;
  key: number;
  target: number;
  body: number;
}

const request = fc.record({
  caller: fc.integer({ min: 0, max: 1 }),
  key: fc.integer({ min: 0, max: 2 }),
  target: fc.integer({ min: 0, max: 1 }),
  body: fc.integer({ min: 0, max: 1 }),
});
/** Steps one after another; the requests of a step all at once. */
const schedule = fc.array(fc.array(request, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 });

interface Sent extends Request {
  step: number;
  status: number;
  replayed: boolean;
  text: string;
}

let run = 0;
/** Every kind of answer seen, so that a run that never met a conflict or a reuse cannot pass unnoticed. */
const seen = new Map<string, number>();
const kindOf = (each: Sent) => (each.replayed ? 'replay' : String(each.status));

async function play(steps: Request[][]): Promise<{ sent: Sent[]; targets: string[] }> {
  run += 1;
  // Keys and targets of their own per run, so that runs never see each other's.
  const targets = [harness.owners.content.publish('recipe').id, harness.owners.content.publish('recipe').id];
  const sent: Sent[] = [];
  for (const [step, requests] of steps.entries()) {
    await Promise.all(
      requests.map(async (each) => {
        const response = await harness.app.inject({
          method: 'POST',
          url: `/api/recipes/${targets[each.target]}/comments`,
          headers: {
            authorization: `Bearer ${callers[each.caller]!.token}`,
            'idempotency-key': `run-${run}-key-${each.key}`,
          },
          payload: { content: BODIES[each.body] },
        });
        const answer: Sent = {
          ...each,
          step,
          status: response.statusCode,
          replayed: response.headers['idempotent-replayed'] === 'true',
          text: response.body,
        };
        seen.set(kindOf(answer), (seen.get(kindOf(answer)) ?? 0) + 1);
        sent.push(answer);
      }),
    );
  }
  return { sent, targets };
}

const sameRequest = (a: Request, b: Request) => a.target === b.target && a.body === b.body;

async function check({ sent, targets }: { sent: Sent[]; targets: string[] }): Promise<void> {
  const groups = new Map<string, Sent[]>();
  for (const each of sent)
    groups.set(`${each.caller}/${each.key}`, [...(groups.get(`${each.caller}/${each.key}`) ?? []), each]);
  const firsts: Sent[] = [];
  for (const group of groups.values()) {
    const first = group.filter((each) => each.status === 201 && !each.replayed);
    expect(first, 'one request of each (caller, key) runs').toHaveLength(1);
    firsts.push(first[0]!);
    for (const each of group) {
      if (each === first[0]) continue;
      if (each.status === 409) {
        // In flight: another request with the key was sent in the same step and got through to the lock.
        const others = group.filter((other) => other !== each && other.step === each.step);
        expect(
          others.some((other) => other.status !== 409),
          'a 409 only while another with the key runs',
        ).toBe(true);
        continue;
      }
      expect(each.step, 'nothing is replayed before its first has answered').toBeGreaterThanOrEqual(first[0]!.step);
      if (sameRequest(each, first[0]!)) {
        expect(each.replayed, 'the same request is replayed').toBe(true);
        expect(each.status).toBe(201);
        expect(each.text, 'a replay is the first response').toBe(first[0]!.text);
      } else {
        expect(each.status, 'another request with the key is refused').toBe(422);
        expect(JSON.parse(each.text)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
      }
    }
  }

  // One effect each: the comments and their mention events are exactly those of the first requests.
  const ids = firsts.map((first) => JSON.parse(first.text).comment.id as string).sort();
  const { rows } = await harness.pool.query<{ id: string }>(
    'SELECT id FROM comments WHERE target_id = ANY($1::uuid[]) ORDER BY id',
    [targets],
  );
  expect(rows.map((row) => row.id)).toEqual(ids);
  const events = await harness.pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM outbox WHERE type = 'comment.mention.created' AND payload->'data'->>'commentId' = ANY($1::text[])`,
    [ids],
  );
  expect(events.rows[0]!.count).toBe(firsts.reduce((sum, first) => sum + mentions(first.body), 0));
}

describe(`Idempotency-Key under random retries (seed ${SEED}; IDEMPOTENCY_SEED to change it)`, () => {
  it(`keeps one effect per key and replays or refuses every other request, over ${RUNS} schedules`, async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async (steps) => {
        await check(await play(steps));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`idempotency properties (seed ${SEED}): ${JSON.stringify(Object.fromEntries(seen))}`);
    for (const kind of ['201', 'replay', '409', '422'])
      expect(seen.get(kind), `some answers were ${kind}`).toBeGreaterThan(0);
  }, 120_000);
});
