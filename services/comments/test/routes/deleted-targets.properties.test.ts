import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  generousLimits,
  kinds,
  stores,
  targetDeletion,
} from '../support.js';

/**
 * A target deleted while comments are posted on it (docs/api.md §5): whatever the order of the comments,
 * the deletion event and its repeats, some at the same moment, in the end the target has no live comment
 * and no mention row, and every mention a comment stored was taken back (`comment.mention.deleted`).
 */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

async function outboxOf(type: string, targetId: string): Promise<Record<string, string>[]> {
  const { rows } = await harness.pool.query<{ data: Record<string, string> }>(
    `SELECT payload->'data' AS data FROM outbox WHERE type = $1 AND payload->'data'->>'targetId' = $2`,
    [type, targetId],
  );
  return rows.map((row) => row.data);
}

let run = 0;

describe('a target deleted as it is commented on', () => {
  it('ends with nothing visible pointing at it, whatever the order of comments, its deletion and repeats', async () => {
    const step = fc.constantFrom('comment', 'deleted');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        async (kind, steps, together) => {
          const owner = harness.register(`Owner_d${++run}`);
          const author = harness.register(`Author_d${run}`);
          const mentioned = harness.register(`Named_d${run}`);
          const target = harness.target(kind, owner.user.id);
          // The target is known before anything: the first comment stands for one posted long before.
          const first = await harness.app.inject({
            method: 'POST',
            url: commentsUrl(kind, target),
            payload: { content: `@${mentioned.user.username}` },
            headers: bearer(author.token),
          });
          expect(first.statusCode).toBe(201);
          const deleted = targetDeletion(kind, target, owner.user.id);
          const act = async (what: string) => {
            if (what === 'deleted') return harness.deliver(deleted);
            const response = await harness.app.inject({
              method: 'POST',
              url: commentsUrl(kind, target),
              payload: { content: `hi @${mentioned.user.username}` },
              headers: bearer(author.token),
            });
            expect([201, 404]).toContain(response.statusCode);
          };
          const all = steps.includes('deleted') ? steps : [...steps, 'deleted'];
          if (together) await Promise.all(all.map(act));
          else for (const what of all) await act(what);

          expect((await harness.app.inject({ method: 'GET', url: commentsUrl(kind, target) })).statusCode).toBe(404);
          const { rows: live } = await harness.pool.query(
            'SELECT id FROM comments WHERE target_id = $1 AND deleted_at IS NULL',
            [target],
          );
          expect(live).toEqual([]);
          const { rows: rows } = await harness.pool.query(
            `SELECT m.id FROM ${stores[kind]} m JOIN comments c ON c.id = m.comment_id WHERE c.target_id = $1`,
            [target],
          );
          expect(rows).toEqual([]);
          const made = (await outboxOf('comment.mention.created', target)).map((data) => data.mentionId).sort();
          const takenBack = (await outboxOf('comment.mention.deleted', target)).map((data) => data.mentionId).sort();
          expect(takenBack).toEqual(made);
          expect(made.length).toBeGreaterThan(0);
          const created = (await outboxOf('comment.created', target)).map((data) => data.id).sort();
          expect((await outboxOf('comment.deleted', target)).map((data) => data.id).sort()).toEqual(created);
        },
      ),
      { numRuns: 40 },
    );
  });
});
