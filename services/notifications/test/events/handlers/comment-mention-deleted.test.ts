import fc from 'fast-check';
import { commentMentionDeleted, createEvent, type EventEnvelope, newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../../support.js';

/** A mention taken back retracts its notification: out of the list and the counts, and never notified again. */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Retracts'])),
);
afterAll(() => harness.close());

type Mention = ReturnType<typeof mentionEvent>;
/** The retraction of `mention`, as the comments service's trigger writes it when the row goes. */
const retraction = (mention: Mention): EventEnvelope =>
  createEvent(
    commentMentionDeleted,
    { ...mention.data, deletedAt: new Date().toISOString() },
    { producer: 'comments', correlationId: 'test-retraction' },
  );
/** The same user mentioned again in the same comment: a new row in the store, so a new mention id. */
const mentionedAgain = (mention: Mention): Mention =>
  mentionEvent({ id: mention.data.actorId }, { id: mention.data.mentionedUserId }, mention.data.kind, {
    ...mention.data,
    mentionId: newId(),
  });

async function seen(user: TestUser) {
  const list = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications?limit=100', headers: bearer(user) })
  ).json();
  const unread = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: bearer(user) })
  ).json().count;
  return {
    commentIds: list.data.map((n: { commentId: string }) => n.commentId).sort(),
    total: list.pagination.total,
    unread,
  };
}

describe('retracting a mention', () => {
  it('takes its notification out of the list, the total and the unread count, once however often it comes', async () => {
    const bob = await harness.knownUser('Bob_Retracted');
    const [kept, taken] = [mentionEvent(ada, bob), mentionEvent(ada, bob)];
    await harness.deliver(kept);
    await harness.deliver(taken);
    expect(await seen(bob)).toEqual({
      commentIds: [kept.data.commentId, taken.data.commentId].sort(),
      total: 2,
      unread: 2,
    });
    const retracted = retraction(taken);
    await harness.deliver(retracted);
    await harness.deliver(retracted);
    await harness.deliver(retraction(taken));
    expect(await seen(bob)).toEqual({ commentIds: [kept.data.commentId], total: 1, unread: 1 });
  });

  it('of a notification already read, lowers only the total', async () => {
    const cy = await harness.knownUser('Cy_Read');
    const mention = mentionEvent(ada, cy);
    await harness.deliver(mention);
    const [notification] = (
      await harness.app.inject({ method: 'GET', url: '/api/notifications', headers: bearer(cy) })
    ).json().data;
    await harness.app.inject({
      method: 'PATCH',
      url: '/api/notifications/read',
      headers: bearer(cy),
      payload: { notificationIds: [notification.id] },
    });
    await harness.deliver(retraction(mention));
    expect(await seen(cy)).toEqual({ commentIds: [], total: 0, unread: 0 });
  });

  it('that comes before its mention keeps the mention from ever notifying', async () => {
    const dee = await harness.knownUser('Dee_Early');
    const mention = mentionEvent(ada, dee);
    await harness.deliver(retraction(mention));
    await harness.deliver(mention);
    expect(await seen(dee)).toEqual({ commentIds: [], total: 0, unread: 0 });
  });

  it('is final: the comment mentioning the user again notifies nobody', async () => {
    const eve = await harness.knownUser('Eve_Again');
    const mention = mentionEvent(ada, eve);
    await harness.deliver(mention);
    await harness.deliver(retraction(mention));
    await harness.deliver(mentionedAgain(mention));
    expect(await seen(eve)).toEqual({ commentIds: [], total: 0, unread: 0 });
  });

  it('ends the same whatever the order of mentions, retractions and repeats: each comment notifies once, unless ever taken back', async () => {
    // Per comment: mentioned, maybe taken back, maybe mentioned again; every event maybe twice; any order, some at
    // once.
    const plan = fc.array(fc.record({ takenBack: fc.boolean(), againAfter: fc.boolean(), twice: fc.boolean() }), {
      minLength: 1,
      maxLength: 5,
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(plan, fc.infiniteStream(fc.nat()), fc.boolean(), async (comments, order, together) => {
        const user = await harness.knownUser(`Mentioned_${++run}`);
        const events = comments.flatMap(({ takenBack, againAfter, twice }) => {
          const first = mentionEvent(ada, user);
          const own = [
            first,
            ...(takenBack ? [retraction(first)] : []),
            ...(takenBack && againAfter ? [mentionedAgain(first)] : []),
          ];
          return twice ? [...own, ...own] : own;
        });
        const shuffled = events
          .map((event) => ({ event, key: order.next().value as number }))
          .sort((a, b) => a.key - b.key);
        if (together) await Promise.all(shuffled.map(({ event }) => harness.deliver(event)));
        else for (const { event } of shuffled) await harness.deliver(event);
        const live = comments.filter((c) => !c.takenBack).length;
        const result = await seen(user);
        expect(result.total).toBe(live);
        expect(result.unread).toBe(live);
        expect(result.commentIds).toHaveLength(live);
      }),
      { numRuns: 30, seed: 20261123 },
    );
  });
});
