import { newId } from '@recipes/contracts';
import type { App } from '@recipes/http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  expectProblem,
  generousLimits,
  type Kind,
} from '../support.js';

/**
 * What one user can make the service notify (docs/api.md §5): edits spend from the comment limit, mentions
 * new and by edit from the notification budget, and a comment mentions at most ten users in its life.
 */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}_n${++counter}`;
const people = (prefix: string, count: number) => Array.from({ length: count }, () => harness.register(unique(prefix)));
const naming = (users: { user: { username: string } }[]) => users.map(({ user }) => `@${user.username}`).join(' ');

const send = (app: App, kind: Kind, target: string, token: string, content: string, requestId = newId()) =>
  app.inject({
    method: 'POST',
    url: commentsUrl(kind, target),
    payload: { content },
    headers: { ...bearer(token), 'x-request-id': requestId },
  });
const edit = (
  app: App,
  kind: Kind,
  target: string,
  commentId: string,
  token: string,
  content: string,
  requestId = newId(),
) =>
  app.inject({
    method: 'PATCH',
    url: `${commentsUrl(kind, target)}/${commentId}`,
    payload: { content },
    headers: { ...bearer(token), 'x-request-id': requestId },
  });

async function commented(app: App, kind: Kind, target: string, token: string, content: string) {
  const response = await send(app, kind, target, token, content);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().comment as { id: string; content: string };
}

const mentioned = async (kind: Kind, commentId: string) =>
  (await harness.mentionRows(kind, commentId)).map((row) => row.mentioned_user_id).sort();
const ids = (users: { user: { id: string } }[]) => users.map(({ user }) => user.id).sort();

/** Every user the comment's `comment.mention.created` events name: whom it notified, over its whole life. */
async function notifiedBy(commentId: string): Promise<Set<string>> {
  const { rows } = await harness.pool.query<{ userId: string }>(
    `SELECT payload->'data'->>'mentionedUserId' AS "userId" FROM outbox WHERE type = 'comment.mention.created' AND payload->'data'->>'commentId' = $1`,
    [commentId],
  );
  return new Set(rows.map((row) => row.userId));
}

const eventsOf = async (requestId: string) =>
  (await harness.pool.query(`SELECT 1 FROM outbox WHERE payload->>'correlationId' = $1`, [requestId])).rowCount;

/** The named item of a RateLimit header, e.g. `"notifications";r=3;t=1200` → { r: 3, t: 1200 }. */
function limitItem(header: unknown, name: string): { r: number; t: number } | undefined {
  const item = String(header ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .find((entry) => entry.startsWith(`"${name}";`));
  if (!item) return undefined;
  const parameters = Object.fromEntries(
    item
      .split(';')
      .slice(1)
      .map((pair) => pair.split('=')),
  );
  return { r: Number(parameters.r), t: Number(parameters.t) };
}

describe('edits and the comment limit', () => {
  it('spends an edit from the same per-caller limit as a new comment: past it, 429 and the comment is unchanged', async () => {
    const limited = await harness.anotherApp({ ...generousLimits, COMMENT_LIMIT_PER_MINUTE: '3' });
    const author = harness.register(unique('Editor'));
    const target = harness.target('recipe');
    const comment = await commented(limited, 'recipe', target, author.token, 'first');
    expect((await edit(limited, 'recipe', target, comment.id, author.token, 'second')).statusCode).toBe(200);
    expect((await edit(limited, 'recipe', target, comment.id, author.token, 'third')).statusCode).toBe(200);

    const refused = await edit(limited, 'recipe', target, comment.id, author.token, 'fourth');
    expect(expectProblem(refused, 429).code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(limitItem(refused.headers.ratelimit, 'comments')?.r).toBe(0);
    // And a new comment, after those edits, is over the same limit.
    expectProblem(await send(limited, 'recipe', target, author.token, 'another'), 429);
    const listed = (await limited.inject({ method: 'GET', url: commentsUrl('recipe', target) })).json();
    expect(listed.comments.map((each: { content: string }) => each.content)).toEqual(['third']);
  });
});

describe('the notification budget', () => {
  it('pays for each user newly mentioned, by comments and edits alike, and past it refuses with 429 and changes nothing', async () => {
    const budgeted = await harness.anotherApp({ ...generousLimits, NOTIFICATION_BUDGET_PER_HOUR: '20' });
    const author = harness.register(unique('Chatty'));
    const users = people('Heard', 21);
    const [recipe, post] = [harness.target('recipe'), harness.target('post')];

    const first = await send(budgeted, 'recipe', recipe, author.token, `hi ${naming(users.slice(0, 5))}`);
    expect(first.statusCode).toBe(201);
    expect(limitItem(first.headers.ratelimit, 'notifications')?.r).toBe(15);
    expect(first.headers['ratelimit-policy']).toContain('"notifications";q=20;w=3600');
    const a = first.json().comment.id as string;

    // Of those, only users the comment never mentioned cost anything: two.
    const edited = await edit(
      budgeted,
      'recipe',
      recipe,
      a,
      author.token,
      `now ${naming([users[0]!, users[5]!, users[6]!])}`,
    );
    expect(edited.statusCode).toBe(200);
    expect(limitItem(edited.headers.ratelimit, 'notifications')?.r).toBe(13);
    expect(await mentioned('recipe', a)).toEqual(ids([users[0]!, users[5]!, users[6]!]));

    const second = await send(budgeted, 'post', post, author.token, naming(users.slice(7, 17)));
    expect(second.statusCode).toBe(201);
    expect(limitItem(second.headers.ratelimit, 'notifications')?.r).toBe(3);
    const third = await send(budgeted, 'post', post, author.token, naming(users.slice(17, 20)));
    expect(third.statusCode).toBe(201);
    expect(limitItem(third.headers.ratelimit, 'notifications')?.r).toBe(0);

    // The twenty-first user, by an edit or by a new comment: refused, and nothing of either is stored.
    const editRequest = newId();
    const refusedEdit = await edit(
      budgeted,
      'recipe',
      recipe,
      a,
      author.token,
      `and ${naming([users[20]!])}`,
      editRequest,
    );
    expect(expectProblem(refusedEdit, 429).code).toBe('RATE_LIMITED');
    const retryAfter = Number(refusedEdit.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limitItem(refusedEdit.headers.ratelimit, 'notifications')).toEqual({ r: 0, t: retryAfter });
    expect(await mentioned('recipe', a)).toEqual(ids([users[0]!, users[5]!, users[6]!]));
    expect(await eventsOf(editRequest)).toBe(0);

    const commentRequest = newId();
    expectProblem(await send(budgeted, 'post', post, author.token, `hey ${naming([users[20]!])}`, commentRequest), 429);
    expect(await eventsOf(commentRequest)).toBe(0);
    const listed = (await budgeted.inject({ method: 'GET', url: commentsUrl('post', post) })).json();
    expect(listed.total).toBe(2);
    const [{ content: unchanged }] = (
      await budgeted.inject({ method: 'GET', url: commentsUrl('recipe', recipe) })
    ).json().comments;
    expect(unchanged).toBe(`now ${naming([users[0]!, users[5]!, users[6]!])}`);

    // What notifies nobody new still goes through: a comment without mentions, an edit back to old ones.
    expect((await send(budgeted, 'post', post, author.token, 'no one')).statusCode).toBe(201);
    expect((await edit(budgeted, 'recipe', recipe, a, author.token, naming(users.slice(0, 7)))).statusCode).toBe(200);
    expect(await mentioned('recipe', a)).toEqual(ids(users.slice(0, 7)));
    // Another author has a budget of their own.
    expect(
      (await send(budgeted, 'recipe', recipe, harness.register(unique('Quiet')).token, naming([users[20]!])))
        .statusCode,
    ).toBe(201);
  });

  it('is one budget for every instance of the service, kept in its database', async () => {
    const [one, two] = [
      await harness.anotherApp({ ...generousLimits, NOTIFICATION_BUDGET_PER_HOUR: '20' }),
      await harness.anotherApp({ ...generousLimits, NOTIFICATION_BUDGET_PER_HOUR: '20' }),
    ];
    const author = harness.register(unique('Spread'));
    const users = people('Spreadee', 21);
    const target = harness.target('collection');
    await commented(one, 'collection', target, author.token, naming(users.slice(0, 10)));
    await commented(two, 'collection', target, author.token, naming(users.slice(10, 20)));
    expectProblem(await send(one, 'collection', target, author.token, naming(users.slice(20))), 429);
    expectProblem(await send(two, 'collection', target, author.token, naming(users.slice(20))), 429);
  });

  it('never lets concurrent requests of one author overspend it', async () => {
    const budgeted = await harness.anotherApp({ ...generousLimits, NOTIFICATION_BUDGET_PER_HOUR: '20' });
    const author = harness.register(unique('Racer'));
    const users = people('Raced', 30);
    const target = harness.target('recipe');
    // Ten requests of three mentions each, at once: six fit in the budget of twenty.
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send(budgeted, 'recipe', target, author.token, naming(users.slice(i * 3, i * 3 + 3))),
      ),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(6);
    expect(responses.filter((response) => response.statusCode === 429)).toHaveLength(4);
  });
});

describe('the users one comment may ever mention', () => {
  it('are ten over all its edits: an edit naming ten others mentions none of them, and the first ten may come back', async () => {
    const author = harness.register(unique('Capped'));
    const [first, others] = [people('First', 10), people('Other', 10)];
    const target = harness.target('post');
    const comment = await commented(harness.app, 'post', target, author.token, naming(first));

    expect((await edit(harness.app, 'post', target, comment.id, author.token, naming(others))).statusCode).toBe(200);
    expect(await mentioned('post', comment.id)).toEqual([]);
    // The old ones keep their place, in any order, with newcomers ignored around them.
    const mixed = naming([others[0]!, ...first.slice(5), others[1]!, ...first.slice(0, 5)]);
    expect((await edit(harness.app, 'post', target, comment.id, author.token, mixed)).statusCode).toBe(200);
    expect(await mentioned('post', comment.id)).toEqual(ids(first));
    expect(await notifiedBy(comment.id)).toEqual(new Set(ids(first)));
  });

  it('holds whatever the edits: at most ten users notified per comment, the first ones in the order they came', async () => {
    const author = harness.register(unique('Property'));
    const pool = people('Pooled', 16);
    const target = harness.target('recipe');
    // Each version of the comment names some of the pool, in any order.
    const version = fc.uniqueArray(fc.integer({ min: 0, max: pool.length - 1 }), { maxLength: 12 });

    await fc.assert(
      fc.asyncProperty(version, fc.array(version, { minLength: 1, maxLength: 6 }), async (initial, edits) => {
        const text = (indices: number[]) => `v ${naming(indices.map((index) => pool[index]!))}`;
        const comment = await commented(harness.app, 'recipe', target, author.token, text(initial));
        // The model: the users ever mentioned grow, in order of arrival, up to ten; each version mentions
        // those of its names that are in that set once it is through.
        const ever: string[] = [];
        for (const indices of [initial, ...edits]) {
          if (indices !== initial)
            expect(
              (await edit(harness.app, 'recipe', target, comment.id, author.token, text(indices))).statusCode,
            ).toBe(200);
          const named = indices.map((index) => pool[index]!.user.id);
          for (const id of named) if (!ever.includes(id) && ever.length < 10) ever.push(id);
          expect(await mentioned('recipe', comment.id)).toEqual(named.filter((id) => ever.includes(id)).sort());
        }
        const notified = await notifiedBy(comment.id);
        expect(notified.size).toBeLessThanOrEqual(10);
        expect(notified).toEqual(new Set(ever));
      }),
      { numRuns: 40 },
    );
  });
});
