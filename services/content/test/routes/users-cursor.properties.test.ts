import { walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness } from '../support.js';

/**
 * docs/api.md §10.1: a walk through a user's recipes by cursor while they publish and delete sees each that stayed
 * exactly once, in order.
 */
let harness: ContentHarness;
beforeAll(async () => (harness = await contentHarness()));
afterAll(() => harness.close());

/** A change the author makes meanwhile: a new recipe, or the deletion of the `n`th live one. */
const change = fc.oneof(fc.constant({ add: true as const }), fc.record({ remove: fc.nat() }));

describe('walking GET /api/users/{id}/recipes by cursor', () => {
  it('sees every recipe that stayed exactly once, newest first, never one twice, whatever is published and deleted meanwhile', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 10 }),
        fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        async (initial, changes, limit) => {
          const author = await harness.knownUser(`Walker_${++runs}`);
          const live: string[] = [];
          const add = async () => {
            const response = await harness.app.inject({
              method: 'POST',
              url: '/api/recipes',
              payload: { title: 'A recipe', cameraModel: 'X-T5', filmSimulation: 'Acros' },
              headers: harness.bearer(author),
            });
            expect(response.statusCode).toBe(201);
            live.push(response.json().recipe.id);
          };
          for (let i = 0; i < initial; i++) await add();
          const before = new Set(live);

          const seen = await walkWhileChanging(
            async (cursor) => {
              const response = await harness.app.inject({
                method: 'GET',
                url: `/api/users/${author.id}/recipes?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
              });
              expect(response.statusCode).toBe(200);
              const { recipes, pagination } = response.json();
              return { ids: recipes.map((recipe: { id: string }) => recipe.id), nextCursor: pagination.nextCursor };
            },
            async (step) => {
              for (const next of changes[step] ?? []) {
                if ('add' in next) await add();
                else if (live.length > 0) {
                  const [id] = live.splice(next.remove % live.length, 1);
                  const response = await harness.app.inject({
                    method: 'DELETE',
                    url: `/api/recipes/${id}`,
                    headers: harness.bearer(author),
                  });
                  expect(response.statusCode).toBe(200);
                }
              }
            },
          );

          const { rows } = await harness.pool.query<{ id: string }>(
            'SELECT id FROM recipes WHERE author_id = $1 ORDER BY created_at DESC, id DESC',
            [author.id],
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
      { numRuns: 25 },
    );
  });
});
