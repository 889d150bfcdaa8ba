import { commentMentionDeleted, createEvent, type EventEnvelope, newId } from '@recipes/contracts';
import { walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, mentionEvent, type NotificationsHarness, notificationsHarness, type TestUser } from '../support.js';

/**
 * docs/api.md §10.1: a walk by cursor while notifications arrive and are retracted sees each that stayed exactly once,
 * in order.
 */
let harness: NotificationsHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await notificationsHarness();
  ada = await harness.knownUser('Ada_Walks');
});
afterAll(() => harness.close());

const START = Date.parse('2026-05-01T12:00:00.000Z');
/** Times within a few milliseconds of each other, so that many tie and the id decides. */
const at = fc.integer({ min: -6, max: 6 }).map((ms) => new Date(START + ms).toISOString());
/** A change another client makes: a new mention at some time, or the retraction of the `n`th live one. */
const change = fc.oneof(fc.record({ add: at }), fc.record({ retract: fc.nat() }));

async function liveIds(user: TestUser): Promise<string[]> {
  const { rows } = await harness.pool.query<{ id: string }>(
    'SELECT id FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL',
    [user.id],
  );
  return rows.map((row) => row.id);
}

describe('walking GET /api/notifications by cursor', () => {
  it('sees every notification that stayed exactly once, in order, never one twice, whatever arrives and is retracted meanwhile', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(at, { minLength: 0, maxLength: 15 }),
        fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (initial, changes, limit) => {
          const bob = await harness.knownUser(`Bob_W${newId().slice(-8)}`);
          const mentions: EventEnvelope[] = [];
          const mention = async (createdAt: string) => {
            const event = mentionEvent(ada, bob, 'recipe_comment', { createdAt });
            mentions.push(event);
            await harness.deliver(event);
          };
          for (const createdAt of initial) await mention(createdAt);
          const before = new Set(await liveIds(bob));
          const retracted = new Set<number>();

          const seen = await walkWhileChanging(
            async (cursor) => {
              const response = await harness.app.inject({
                method: 'GET',
                url: `/api/notifications?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
                headers: bearer(bob),
              });
              expect(response.statusCode).toBe(200);
              const { data, pagination } = response.json();
              return { ids: data.map((n: { id: string }) => n.id), nextCursor: pagination.nextCursor };
            },
            async (step) => {
              for (const next of changes[step] ?? []) {
                if ('add' in next) await mention(next.add);
                else if (mentions.length > retracted.size) {
                  const live = mentions.map((_, i) => i).filter((i) => !retracted.has(i));
                  const chosen = live[next.retract % live.length]!;
                  retracted.add(chosen);
                  const data = mentions[chosen]!.data as Record<string, unknown>;
                  await harness.deliver(
                    createEvent(commentMentionDeleted, { ...data, deletedAt: new Date().toISOString() } as never, {
                      producer: 'comments',
                      correlationId: 'walk',
                    }),
                  );
                }
              }
            },
          );

          const after = new Set(await liveIds(bob));
          const { rows } = await harness.pool.query<{ id: string }>(
            'SELECT id FROM notifications WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC',
            [bob.id],
          );
          const rank = new Map(rows.map((row, i) => [row.id, i]));
          expect(
            walkFaults(
              seen,
              [...before].filter((id) => after.has(id)),
              (id) => rank.get(id) ?? Number.NaN,
            ),
          ).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
