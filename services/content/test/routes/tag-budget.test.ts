import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness, expectProblem, type TestUser } from '../support.js';

/** Tags spend from the author's notification budget (docs/api.md §4): past it, 429 and nothing published. */
let harness: ContentHarness;
beforeAll(async () => (harness = await contentHarness({ NOTIFICATION_BUDGET_PER_HOUR: '20' })));
afterAll(() => harness.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}_t${++counter}`;
const people = (count: number) => Promise.all(Array.from({ length: count }, () => harness.knownUser(unique('Tagged'))));
const names = (users: TestUser[]) => users.map((user) => user.username);

const recipe = (author: TestUser, tagged: string[]) =>
  harness.call('POST', '/api/recipes', author, {
    title: 'Classic chrome',
    cameraModel: 'X100V',
    filmSimulation: 'Classic Chrome',
    taggedUsernames: tagged,
  });
const post = (author: TestUser, tagged: string[]) =>
  harness.call('POST', '/api/posts', author, { title: 'Golden hour', taggedUsernames: tagged });

/** The `"notifications"` item of a RateLimit header: what is left, and the seconds until the window ends. */
function notificationsLimit(header: unknown): { r: number; t: number } | undefined {
  const item = String(header ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .find((entry) => entry.startsWith('"notifications";'));
  if (!item) return undefined;
  const parameters = Object.fromEntries(
    item
      .split(';')
      .slice(1)
      .map((pair) => pair.split('=')),
  );
  return { r: Number(parameters.r), t: Number(parameters.t) };
}

const publishedBy = async (author: TestUser) =>
  (
    await harness.pool.query<{ count: number }>(
      `SELECT ((SELECT count(*) FROM recipes WHERE author_id = $1) + (SELECT count(*) FROM posts WHERE author_id = $1))::int AS count`,
      [author.id],
    )
  ).rows[0]!.count;

const tagEventsAbout = async (author: TestUser) =>
  (
    await harness.pool.query(
      `SELECT 1 FROM outbox WHERE type = 'content.user.tagged' AND payload->'data'->>'actorId' = $1`,
      [author.id],
    )
  ).rowCount;

describe('tagging and the notification budget', () => {
  it('pays for each tagged user, by recipes and posts together; past it, 429 with Retry-After and nothing published', async () => {
    const author = await harness.knownUser(unique('Tagger'));
    const users = await people(21);

    const first = await recipe(author, [...names(users.slice(0, 12)), 'nobody_at_all']);
    expect(first.statusCode).toBe(201);
    expect(notificationsLimit(first.headers.ratelimit)?.r).toBe(8);
    expect(first.headers['ratelimit-policy']).toContain('"notifications";q=20;w=3600');
    const second = await post(author, names(users.slice(12, 20)));
    expect(second.statusCode).toBe(201);
    expect(notificationsLimit(second.headers.ratelimit)?.r).toBe(0);

    for (const refused of [await post(author, names(users.slice(20))), await recipe(author, names(users.slice(20)))]) {
      expect(expectProblem(refused, 429).code).toBe('RATE_LIMITED');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(notificationsLimit(refused.headers.ratelimit)).toEqual({ r: 0, t: retryAfter });
    }
    expect(await publishedBy(author)).toBe(2);
    expect(await tagEventsAbout(author)).toBe(20);

    // What tags nobody costs nothing: no tags, names of nobody, the author themself.
    expect((await post(author, [])).statusCode).toBe(201);
    expect((await recipe(author, ['nobody_at_all', author.username])).statusCode).toBe(201);
    // Another author has a budget of their own: twenty tags in one request fit.
    expect((await post(await harness.knownUser(unique('Fresh')), names(users.slice(0, 20)))).statusCode).toBe(201);
  });
});
