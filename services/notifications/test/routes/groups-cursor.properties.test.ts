import { newId } from '@recipes/contracts';
import { walkFaults, walkWhileChanging } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, mentionEvent, type NotificationsHarness, notificationsHarness, type TestUser } from '../support.js';

/**
 * docs/api.md §10.1 and §10.5: a walk through the groups by cursor while notifications arrive that leave
 * each group's latestAt as it was (new groups, at any time; older notifications in existing groups) sees
 * every group that existed throughout exactly once, latest first.
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
const change = fc.oneof(fc.record({ newGroup: at }), fc.record({ older: fc.nat(), actor: fc.nat({ max: 2 }) }));

describe('walking GET /api/notifications/groups by cursor', () => {
  it('sees every group that existed throughout exactly once, in order, whatever new groups and older notifications arrive', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(at, { maxLength: 10 }), fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 8 }), fc.integer({ min: 1, max: 3 }), async (initial, changes, limit) => {
        const bob = await harness.knownUser(`Bob_GW${newId().slice(-8)}`);
        /** Each group's content and its latest time, as made. */
        const groups: Array<{ targetId: string; latest: number }> = [];
        const notify = async (targetId: string, ms: number, actor = 0) =>
          harness.deliver(mentionEvent(actors[actor]!, bob, 'recipe_comment', { targetId, createdAt: new Date(START + ms).toISOString() }));
        const newGroup = async (ms: number) => {
          const targetId = newId();
          groups.push({ targetId, latest: ms });
          await notify(targetId, ms);
        };
        for (const ms of initial) await newGroup(ms);
        const before = groups.map((group) => `mention_recipe_comment:${group.targetId}`);

        const seen = await walkWhileChanging(
          async (cursor) => {
            const response = await harness.app.inject({ method: 'GET', url: `/api/notifications/groups?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, headers: bearer(bob) });
            expect(response.statusCode).toBe(200);
            const body = response.json();
            return { ids: body.groups.map((group: { groupKey: string }) => group.groupKey), nextCursor: body.pagination.nextCursor };
          },
          async (step) => {
            for (const next of changes[step] ?? []) {
              if ('newGroup' in next) await newGroup(next.newGroup);
              else if (groups.length > 0) {
                // A notification older than the group's latest: its latestAt stays.
                const group = groups[next.older % groups.length]!;
                await notify(group.targetId, group.latest - 1 - (next.older % 5), next.actor);
              }
            }
          },
        );

        // Latest first, then the key descending, as the service orders them.
        const ranked = groups
          .map((group) => ({ key: `mention_recipe_comment:${group.targetId}`, latest: group.latest }))
          .sort((a, b) => b.latest - a.latest || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
          .map((group) => group.key);
        const rank = new Map(ranked.map((key, i) => [key, i]));
        expect(walkFaults(seen, before, (key) => rank.get(key) ?? Number.NaN)).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});
