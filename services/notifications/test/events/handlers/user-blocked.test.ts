import { type EventEnvelope, notificationRetracted } from '@recipes/contracts';
import type { StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relationHistory } from '../../relation-events.js';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  tagEvent,
  type TestUser,
} from '../../support.js';

/**
 * Mutes and blocks as the notifications service follows them (docs/api.md §10): a muted or blocked actor
 * notifies nobody who mutes or blocks them; a block also retracts what they caused, live on open streams.
 */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Actor'])),
);
afterAll(() => harness.close());

async function listed(user: TestUser) {
  const list = await harness.app.inject({ method: 'GET', url: '/api/notifications?limit=100', headers: bearer(user) });
  const unread = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: bearer(user) })
  ).json().count;
  return {
    ids: list.json().data.map((n: { id: string }) => n.id) as string[],
    total: list.json().pagination.total,
    unread,
    etag: list.headers.etag,
  };
}

/** Relays what the service wrote to its outbox to this instance's own queue, as the broker would; what it relayed. */
async function relay(): Promise<EventEnvelope[]> {
  const events = await harness.published();
  for (const event of events) await harness.hear(event);
  return events;
}

const deliverAll = async (events: EventEnvelope[]) => {
  for (const event of events) await harness.deliver(event);
};

describe('a mute', () => {
  it('keeps the muted actor from notifying the muter from then on; earlier notifications stay, and an unmute ends it', async () => {
    const bob = await harness.knownUser('Bob_Mutes');
    const cy = await harness.knownUser('Cy_Not_Muted');
    const [muted, unmuted] = relationHistory(bob, ada, [
      { kind: 'mute', on: true },
      { kind: 'mute', on: false },
    ]);
    await harness.deliver(mentionEvent(ada, bob));
    await harness.deliver(muted!);
    await harness.deliver(mentionEvent(ada, bob));
    await harness.deliver(tagEvent(ada, bob, 'post'));
    // Another actor, and another recipient of the muted actor, are untouched.
    await harness.deliver(mentionEvent(cy, bob));
    await harness.deliver(mentionEvent(ada, cy));
    expect((await listed(bob)).total).toBe(2);
    expect((await listed(cy)).total).toBe(1);

    await harness.deliver(unmuted!);
    await harness.deliver(tagEvent(ada, bob, 'recipe'));
    expect(await harness.countsOf(bob.id)).toEqual({ total: 3, unread: 3 });
  });
});

describe('a block', () => {
  it('retracts what the blocked actor caused the blocker, on an open stream too, changes the ETag, and stores nothing of theirs from then on', async () => {
    const bob = await harness.knownUser('Bob_Blocks');
    const dee = await harness.knownUser('Dee_Other_Actor');
    const client = await harness.stream(bob);
    const isRetracted = (id: string) => (event: StreamEvent) =>
      event.event === 'retracted' && JSON.parse(event.data).id === id;

    await deliverAll([mentionEvent(ada, bob), tagEvent(ada, bob, 'recipe'), mentionEvent(dee, bob)]);
    await relay();
    const before = await listed(bob);
    expect(before.total).toBe(3);
    const fromAda = (
      await harness.pool.query(
        'SELECT id FROM notifications WHERE recipient_id = $1 AND actor_id = $2 ORDER BY sequence',
        [bob.id, ada.id],
      )
    ).rows.map((row) => row.id as string);
    for (const id of before.ids) await client.next((event) => event.id === id);

    const [blocked, unblocked] = relationHistory(bob, ada, [
      { kind: 'block', on: true },
      { kind: 'block', on: false },
    ]);
    await harness.deliver(blocked!);
    await harness.deliver(blocked!);
    const announced = await relay();
    expect(announced.map((event) => [event.type, (event.data as { id: string }).id])).toEqual(
      fromAda.map((id) => [notificationRetracted.type, id]),
    );
    for (const id of fromAda) await client.next(isRetracted(id));

    const after = await listed(bob);
    expect(after).toMatchObject({ total: 1, unread: 1, ids: before.ids.filter((id) => !fromAda.includes(id)) });
    expect(after.etag).not.toBe(before.etag);

    // Blocked: nothing of theirs is stored. Unblocked: nothing comes back, and only what they do afterwards notifies.
    await deliverAll([mentionEvent(ada, bob), tagEvent(ada, bob, 'post')]);
    expect((await listed(bob)).total).toBe(1);
    await harness.deliver(unblocked!);
    expect((await listed(bob)).total).toBe(1);
    await harness.deliver(mentionEvent(ada, bob));
    expect((await listed(bob)).total).toBe(2);
  });

  it('handled after its unblock retracts the same; a mention made before the unblock and handled after it notifies nobody', async () => {
    const eve = await harness.knownUser('Eve_Late_Block');
    const early = mentionEvent(ada, eve);
    await harness.deliver(early);
    const made = Date.now();
    const [blocked, unblocked] = relationHistory(
      eve,
      ada,
      [
        { kind: 'block', on: true },
        { kind: 'block', on: false },
      ],
      (step) => new Date(made + 1_000 * (step + 1)),
    );
    const duringBlock = mentionEvent(ada, eve, 'post_comment', { createdAt: new Date(made + 1_500).toISOString() });
    const afterBlock = mentionEvent(ada, eve, 'post_comment', { createdAt: new Date(made + 2_500).toISOString() });
    await deliverAll([unblocked!, duringBlock, blocked!, afterBlock]);
    const { ids } = await listed(eve);
    const stored = (
      await harness.pool.query(
        'SELECT id, comment_id FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL',
        [eve.id],
      )
    ).rows;
    expect(stored.map((row) => row.comment_id)).toEqual([afterBlock.data.commentId]);
    expect(ids).toHaveLength(1);
  });

  it('of someone else by the recipient, or of the recipient by the actor, retracts nothing', async () => {
    const fay = await harness.knownUser('Fay_Kept');
    const gus = await harness.knownUser('Gus_Blocked_Elsewhere');
    await harness.deliver(mentionEvent(ada, fay));
    await deliverAll([
      ...relationHistory(fay, gus, [{ kind: 'block', on: true }]),
      ...relationHistory(ada, fay, [{ kind: 'block', on: true }]),
    ]);
    expect((await listed(fay)).total).toBe(1);
  });
});
