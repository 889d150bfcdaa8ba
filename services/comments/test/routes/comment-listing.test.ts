import { newId } from '@recipes/contracts';
import { pagesAtOdds, readWhileWriting } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  expectProblem,
  generousLimits,
  type Kind,
  kinds,
} from '../support.js';
import { commentCalls } from './comment-calls.js';

let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

const { unique, post, get, commented } = commentCalls(() => harness);

describe('listing', () => {
  it('lists oldest first, pages, clamps the limit, and counts every comment of the target', async () => {
    const target = harness.target('recipe');
    const { token } = harness.register(unique('Pager'));
    const first = await commented('recipe', target, token, 'first');
    const second = await commented('recipe', target, token, 'second');
    const third = await commented('recipe', target, token, 'third');
    await commented('recipe', harness.target('recipe'), token, 'elsewhere');

    expect((await get('recipe', target)).json().comments.map((c: { id: string }) => c.id)).toEqual([
      first.id,
      second.id,
      third.id,
    ]);
    const page2 = (await get('recipe', target, '?page=2&limit=2')).json();
    expect(page2).toEqual({
      comments: [third],
      total: 3,
      pagination: { page: 2, limit: 2, total: 3, totalPages: 2, nextCursor: null },
    });
    expect((await get('recipe', target, '?limit=1000')).json().pagination).toEqual({
      page: 1,
      limit: 100,
      total: 3,
      totalPages: 1,
      nextCursor: null,
    });
    expect((await get('recipe', target, '?page=9&limit=2')).json()).toEqual({
      comments: [],
      total: 3,
      pagination: { page: 9, limit: 2, total: 3, totalPages: 2, nextCursor: null },
    });
  });

  it('answers each page of comments from one snapshot while their author deletes and adds comments, on every kind of target', async () => {
    const { token } = harness.register(unique('Churner'));
    const pagesOf = async (kind: Kind) => {
      const target = harness.target(kind);
      const live: string[] = [];
      for (let i = 0; i < 20; i++) live.push((await commented(kind, target, token, `comment ${i}`)).id);
      // Another client: one comment deleted, then one added, over and over; the total moves with each.
      const churn = async () => {
        for (let round = 0; round < 20; round++) {
          const deleted = await harness.app.inject({
            method: 'DELETE',
            url: `${commentsUrl(kind, target)}/${live.shift()}`,
            headers: bearer(token),
          });
          expect(deleted.statusCode).toBe(200);
          live.push((await commented(kind, target, token, `comment ${20 + round}`)).id);
        }
      };
      return readWhileWriting(async () => (await get(kind, target, '?limit=100')).json(), churn, 2);
    };
    const answers = (await Promise.all(kinds.map(pagesOf))).flat();
    expect(pagesAtOdds(answers, (answer) => answer.comments)).toEqual([]);
    expect(answers.every((answer) => answer.total === answer.pagination.total)).toBe(true);
  });

  it('orders comments of the same millisecond by id', async () => {
    const target = harness.target('recipe');
    const { user, token } = harness.register(unique('Twin'));
    await commented('recipe', target, token, 'makes the author known');
    const [low, high] = ['00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002'];
    await harness.pool.query(
      `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
       VALUES ($1, 'recipe', $3, $4, 'high', '2020-01-01T00:00:00.000Z'), ($2, 'recipe', $3, $4, 'low', '2020-01-01T00:00:00.000Z')`,
      [high, low, target, user.id],
    );
    const listed = (await get('recipe', target)).json().comments.map((c: { content: string }) => c.content);
    expect(listed).toEqual(['low', 'high', 'makes the author known']);
  });

  it('shows each author as the users read model has them, and asks the users service only for one it lost', async () => {
    const target = harness.target('recipe');
    const { user, token } = harness.register(unique('Shown'));
    const comment = await commented('recipe', target, token, 'by a known author');
    const lookups = harness.owners.users.requests.length;
    const listed = (await get('recipe', target)).json().comments;
    expect(listed).toEqual([{ ...comment, author: { id: user.id, username: user.username, avatarUrl: null } }]);
    expect(harness.owners.users.requests.length).toBe(lookups);

    await harness.pool.query('DELETE FROM users WHERE id = $1', [user.id]);
    expect((await get('recipe', target)).json().comments).toEqual(listed);
    expect(harness.owners.users.requests.length).toBe(lookups + 1);
  });

  it.each(['?page=0', '?page=-1', '?page=1.5', '?page=abc', '?page=', '?limit=0', '?limit=1e3', '?limit=%201'])(
    'rejects %s with 400, even for a target that does not exist',
    async (query) => {
      const existing = expectProblem(await get('recipe', harness.target('recipe'), query), 400);
      expect(existing.code).toBe('VALIDATION_ERROR');
      expect(existing.errors?.length).toBeGreaterThan(0);
      expectProblem(await get('recipe', newId(), query), 400);
      expectProblem(await get('recipe', 'not-a-uuid', query), 400);
    },
  );

  it('ignores unknown query parameters', async () => {
    expect((await get('post', harness.target('post'), '?sort=desc&foo=bar')).statusCode).toBe(200);
  });
});

describe('one statement', () => {
  it('stores no comment, no mention and no event when the comment fails after its mentions were stored', async () => {
    const target = harness.target('recipe');
    const author = harness.register(unique('Doomed'));
    const [ada, grace] = [harness.register(unique('Ada')).user, harness.register(unique('Grace')).user];
    const content = `@${ada.username} @${grace.username}`;
    // Fails the second mention's event, only once the first is written: the failure comes after the
    // statement has written some of its events, never before.
    await harness.pool.query(`
      CREATE FUNCTION fail_doomed_comment() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.type = 'comment.mention.created' AND NEW.payload->>'correlationId' = 'doomed'
           AND (SELECT count(*) FROM outbox WHERE type = 'comment.mention.created' AND payload->>'correlationId' = 'doomed') = 1 THEN
          RAISE EXCEPTION 'comment failed after its mentions';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_doomed_comment BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION fail_doomed_comment();`);
    try {
      const response = await post('recipe', target, { content }, { ...bearer(author.token), 'x-request-id': 'doomed' });
      const problem = expectProblem(response, 500);
      expect(problem).toMatchObject({ code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred' });
      expect(JSON.stringify(problem)).not.toMatch(/mentions|outbox|trigger/);
    } finally {
      await harness.pool.query('DROP TRIGGER fail_doomed_comment ON outbox; DROP FUNCTION fail_doomed_comment()');
    }
    const stored = await harness.pool.query(
      `SELECT (SELECT count(*)::int FROM comments WHERE target_id = $1) AS comments,
              (SELECT count(*)::int FROM recipe_comment_mentions WHERE mentioned_user_id = ANY($2::uuid[])) AS mentions,
              (SELECT count(*)::int FROM outbox WHERE payload->>'correlationId' = 'doomed') AS events`,
      [target, [ada.id, grace.id]],
    );
    expect(stored.rows[0]).toEqual({ comments: 0, mentions: 0, events: 0 });

    // The same comment in a request that is not doomed goes through.
    const comment = await commented('recipe', target, author.token, content, 'spared');
    expect(await harness.mentionRows('recipe', comment.id)).toHaveLength(2);
  });
});
