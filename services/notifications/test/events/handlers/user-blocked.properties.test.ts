import fc from 'fast-check';
import type { EventEnvelope } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relationHistory } from '../../relation-events.js';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../../support.js';

/**
 * Blocks and mentions in any order (docs/api.md §10): a user blocks and unblocks an actor who mentions
 * them now and then; the events come in any order, some at once (racing), some again (a consumer restarted
 * before its ack). Whatever the order, a mention made before the latest block ended, or while it holds,
 * shows nowhere; nothing retracted comes back; the counts agree with the list; and once the pair's state
 * is known (every block event handled first, or everything in the order it happened), a mention made after
 * the last unblock shows.
 */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Racing'])),
);
afterAll(() => harness.close());

type Step = 'mention' | 'block' | 'unblock';

async function shown(user: TestUser) {
  const list = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications?limit=100', headers: bearer(user) })
  ).json();
  const unread = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: bearer(user) })
  ).json().count;
  return {
    commentIds: new Set<string>(list.data.map((n: { commentId: string }) => n.commentId)),
    total: list.pagination.total as number,
    unread: unread as number,
  };
}

const retractedIds = async (user: TestUser) =>
  new Set(
    (
      await harness.pool.query(
        'SELECT comment_id FROM notifications WHERE recipient_id = $1 AND retracted_at IS NOT NULL',
        [user.id],
      )
    ).rows.map((row) => row.comment_id as string),
  );

describe('blocks racing mentions', () => {
  it('end as the contract says whatever the order, repeats and races', async () => {
    const steps = fc.array(fc.constantFrom<Step>('mention', 'mention', 'block', 'unblock'), {
      minLength: 1,
      maxLength: 8,
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        steps,
        fc.constantFrom('shuffled', 'in order', 'blocks first'),
        fc.infiniteStream(fc.nat()),
        fc.nat(),
        async (history, arrangement, picks, raceAt) => {
          const bob = await harness.knownUser(`Bob_Races_${++run}`);
          const base = Date.now() - 60_000;
          const at = (step: number) => new Date(base + 1_000 * (step + 1));
          // Each step in real time: a mention made then, or a change of the block (one that changes nothing writes no
          // event).
          const timeline: { event: EventEnvelope; step: number; isMention: boolean }[] = [];
          history.forEach((step, index) => {
            if (step === 'mention') {
              timeline.push({
                event: mentionEvent(ada, bob, 'recipe_comment', { createdAt: at(index).toISOString() }),
                step: index,
                isMention: true,
              });
            }
          });
          const blockSteps = history.map((step, index) => ({ step, index })).filter(({ step }) => step !== 'mention');
          const relationEvents = relationHistory(
            bob,
            ada,
            blockSteps.map(({ step }) => ({ kind: 'block', on: step === 'block' })),
            (i) => at(blockSteps[i]!.index),
          );
          relationEvents.forEach((event) =>
            timeline.push({ event, step: (Date.parse(event.data.changedAt) - base) / 1_000 - 1, isMention: false }),
          );
          const final = relationEvents.at(-1)?.data;
          const covered = (mention: EventEnvelope) =>
            final !== undefined &&
            (final.blocked ||
              (final.lastUnblockedAt !== null &&
                (mention.data as { createdAt: string }).createdAt <= final.lastUnblockedAt));

          // The deliveries: every event, some again; in the arrangement's order.
          const once = timeline.map(({ event, isMention }) => ({ event, isMention }));
          const again = once.filter(() => (picks.next().value as number) % 3 === 0);
          let order: typeof once;
          if (arrangement === 'in order') order = [...timeline].sort((a, b) => a.step - b.step);
          else if (arrangement === 'blocks first')
            order = [...once.filter((d) => !d.isMention), ...once.filter((d) => d.isMention)];
          else
            order = once
              .map((d) => ({ d, key: picks.next().value as number }))
              .sort((a, b) => a.key - b.key)
              .map(({ d }) => d);
          order = [...order, ...again];

          // Two neighbours delivered at once (racing), when shuffled; the rest in turn. Halfway, what was retracted so
          // far.
          const race = arrangement === 'shuffled' && order.length > 1 ? raceAt % (order.length - 1) : -1;
          let retractedHalfway = new Set<string>();
          for (let i = 0; i < order.length; i++) {
            if (i === race) {
              await Promise.all([harness.deliver(order[i]!.event), harness.deliver(order[i + 1]!.event)]);
              i += 1;
            } else await harness.deliver(order[i]!.event);
            if (i === Math.floor(order.length / 2)) retractedHalfway = await retractedIds(bob);
          }

          const result = await shown(bob);
          const mentions = timeline.filter((d) => d.isMention).map((d) => d.event);
          for (const mention of mentions.filter(covered))
            expect(result.commentIds.has((mention.data as { commentId: string }).commentId)).toBe(false);
          for (const id of retractedHalfway) expect(result.commentIds.has(id)).toBe(false);
          expect(result.total).toBe(result.commentIds.size);
          expect(result.unread).toBe(result.commentIds.size);
          if (arrangement !== 'shuffled') {
            const expected = mentions
              .filter((mention) => !covered(mention))
              .map((mention) => (mention.data as { commentId: string }).commentId);
            expect([...result.commentIds].sort()).toEqual(expected.sort());
          }

          // Everything once more, as after another restart: nothing changes.
          for (const { event } of once) await harness.deliver(event);
          expect(await shown(bob)).toEqual(result);
        },
      ),
      { numRuns: 150, seed: 20261127 },
    );
  });
});
