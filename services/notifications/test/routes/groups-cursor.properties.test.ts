import { commentMentionDeleted, createEvent, type EventEnvelope, newId } from '@recipes/contracts';
import { walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, mentionEvent, type NotificationsHarness, notificationsHarness, type TestUser } from '../support.js';

/**
 * docs/api.md §10.1 and §10.5: a walk through the groups by cursor while their notifications arrive and
 * are retracted (new groups; older or newer notifications in existing ones, which move them up; any one
 * retracted, which may move a group down or end it) sees every group that was there throughout exactly
 * once, never one twice, in the order the groups stood in as the walk began.
 */
let harness: NotificationsHarness;
let actors: TestUser[];
beforeAll(async () => {
  harness = await notificationsHarness();
  actors = await Promise.all(['Ada_GW', 'Cy_GW', 'Dee_GW'].map((name) => harness.knownUser(name)));
});
afterAll(() => harness.close());

const START = Date.parse('2026-06-01T12:00:00.000Z');
/** Times a few milliseconds apart, so that groups tie on latestAt and the key decides. */
const at = fc.integer({ min: 0, max: 8 });
const change = fc.oneof(
  fc.record({ newGroup: at }),
  fc.record({ inGroup: fc.nat(), at: fc.integer({ min: -4, max: 12 }), actor: fc.nat({ max: 2 }) }),
  fc.record({ retract: fc.nat() }),
);

describe('walking GET /api/notifications/groups by cursor', () => {
  it('sees every group that was there throughout exactly once, in the order of the walk’s start, whatever arrives and is retracted meanwhile', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(at, { maxLength: 10 }),
        fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        async (initial, changes, limit) => {
          const bob = await harness.knownUser(`Bob_GW${newId().slice(-8)}`);
          const targets: string[] = [];
          /** Every mention delivered, and whether it has been retracted. */
          const mentions: Array<{ event: EventEnvelope; retracted: boolean }> = [];
          const notify = async (targetId: string, ms: number, actor = 0) => {
            const event = mentionEvent(actors[actor]!, bob, 'recipe_comment', {
              targetId,
              createdAt: new Date(START + ms).toISOString(),
            });
            mentions.push({ event, retracted: false });
            await harness.deliver(event);
          };
          const newGroup = async (ms: number) => {
            targets.push(newId());
            await notify(targets.at(-1)!, ms);
          };
          for (const ms of initial) await newGroup(ms);
          const keyOf = (targetId: string) => `mention_recipe_comment:${targetId}`;
          // The groups as they stand when the walk begins, in their order then: latest first, then the key descending.
          const { rows: ranked } = await harness.pool.query<{ group_key: string }>(
            `SELECT group_key FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL
            GROUP BY group_key ORDER BY max(created_at) DESC, group_key DESC`,
            [bob.id],
          );
          const rank = new Map(ranked.map((row, i) => [row.group_key, i]));

          const seen = await walkWhileChanging(
            async (cursor) => {
              const response = await harness.app.inject({
                method: 'GET',
                url: `/api/notifications/groups?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
                headers: bearer(bob),
              });
              expect(response.statusCode).toBe(200);
              const body = response.json();
              return {
                ids: body.groups.map((group: { groupKey: string }) => group.groupKey),
                nextCursor: body.pagination.nextCursor,
              };
            },
            // From the second page on: the first is read as the groups stand at the start, the order the walk keeps.
            async (step) => {
              for (const next of changes[step - 1] ?? []) {
                if ('newGroup' in next) await newGroup(next.newGroup);
                else if ('inGroup' in next) {
                  if (targets.length > 0) await notify(targets[next.inGroup % targets.length]!, next.at, next.actor);
                } else {
                  const live = mentions.filter((mention) => !mention.retracted);
                  if (live.length === 0) continue;
                  const chosen = live[next.retract % live.length]!;
                  chosen.retracted = true;
                  await harness.deliver(
                    createEvent(
                      commentMentionDeleted,
                      { ...(chosen.event.data as object), deletedAt: new Date().toISOString() } as never,
                      { producer: 'comments', correlationId: 'walk' },
                    ),
                  );
                }
              }
            },
          );

          // A group was there throughout when it had a live notification at the start and at every step since:
          // one mention of it delivered before the walk and never retracted is enough.
          const throughout = new Set(
            mentions
              .slice(0, initial.length)
              .filter((mention) => !mention.retracted)
              .map((mention) => keyOf((mention.event.data as { targetId: string }).targetId)),
          );
          expect(walkFaults(seen, throughout, (key) => rank.get(key) ?? Number.NaN)).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
