import { walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type CommentsHarness, commentsHarness, commentsUrl, generousLimits, kinds } from '../support.js';

/**
 * docs/api.md §10.1: a walk by cursor while comments are added and deleted sees each that stayed exactly once, in
 * order.
 */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

/** A change another client makes: a new comment, or the deletion of the `n`th live one. */
const change = fc.oneof(fc.constant({ add: true as const }), fc.record({ remove: fc.nat() }));

describe('walking a comment list by cursor', () => {
  it('sees every comment that stayed exactly once, oldest first, never one twice, whatever is added and deleted meanwhile', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.integer({ min: 0, max: 12 }),
        fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        async (kind, initial, changes, limit) => {
          const target = harness.target(kind);
          const { token } = harness.register(`Walker_${++runs}`);
          const live: string[] = [];
          const add = async () => {
            const response = await harness.app.inject({
              method: 'POST',
              url: commentsUrl(kind, target),
              payload: { content: 'hello' },
              headers: bearer(token),
            });
            expect(response.statusCode).toBe(201);
            live.push(response.json().comment.id);
          };
          for (let i = 0; i < initial; i++) await add();
          const before = new Set(live);

          const seen = await walkWhileChanging(
            async (cursor) => {
              const response = await harness.app.inject({
                method: 'GET',
                url: `${commentsUrl(kind, target)}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
              });
              expect(response.statusCode).toBe(200);
              const { comments, pagination } = response.json();
              return { ids: comments.map((comment: { id: string }) => comment.id), nextCursor: pagination.nextCursor };
            },
            async (step) => {
              for (const next of changes[step] ?? []) {
                if ('add' in next) await add();
                else if (live.length > 0) {
                  const [id] = live.splice(next.remove % live.length, 1);
                  const response = await harness.app.inject({
                    method: 'DELETE',
                    url: `${commentsUrl(kind, target)}/${id}`,
                    headers: bearer(token),
                  });
                  expect(response.statusCode).toBe(200);
                }
              }
            },
          );

          const { rows } = await harness.pool.query<{ id: string }>(
            'SELECT id FROM comments WHERE target_id = $1 ORDER BY created_at, id',
            [target],
          );
          const rank = new Map(rows.map((row, i) => [row.id, i]));
          expect(
            walkFaults(
              seen,
              [...before].filter((id) => live.includes(id)),
              (id) => rank.get(id) ?? Number.NaN,
            ),
          ).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  });
});
