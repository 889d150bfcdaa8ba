import fc from 'fast-check';
import {
  collectionDeleted,
  commentMentionDeleted,
  createEvent,
  type EventEnvelope,
  newId,
  notificationRetracted,
  postDeleted,
  recipeDeleted,
} from '@recipes/contracts';
import type { EventStreamClient, StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  tagEvent,
  type TestUser,
} from '../support.js';

/**
 * Retractions reach open streams (docs/api.md §9): an edit or deletion of a mention, or the deletion of
 * what a notification is about, is sent as `event: retracted` and the new unread count, live and on resume.
 * Prompts reach the stream as this instance's own queue would bring them (`hear`).
 */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Takes_Back'])),
);
afterAll(() => harness.close());

type Mention = ReturnType<typeof mentionEvent>;
/** The mention taken out of its store, as the comments service's trigger writes it. */
const mentionRemoved = (mention: Mention): EventEnvelope =>
  createEvent(
    commentMentionDeleted,
    { ...mention.data, deletedAt: new Date().toISOString() },
    { producer: 'comments', correlationId: 'test-removed' },
  );

const deletions = { recipe: recipeDeleted, post: postDeleted, collection: collectionDeleted } as const;
/** `type` `id` deleted, as its owner service announces it. */
function deleted(type: keyof typeof deletions, id: string): EventEnvelope {
  const snapshot = {
    id,
    authorId: ada.id,
    ownerId: ada.id,
    title: 'Gone',
    name: 'Gone',
    coverImageUrl: null,
    deleted: true,
    revision: 1,
    createdAt: new Date().toISOString(),
  };
  const producer = type === 'collection' ? 'collections' : 'content';
  return createEvent(deletions[type] as typeof recipeDeleted, snapshot, {
    producer,
    correlationId: `test-${type}-deleted`,
  });
}

/** Relays what the service wrote to its outbox to this instance's own queue, as the broker would; what it relayed. */
async function relay(): Promise<EventEnvelope[]> {
  const events = await harness.published();
  for (const event of events) await harness.hear(event);
  return events;
}

async function listed(user: TestUser): Promise<{ ids: string[]; total: number; unread: number }> {
  const list = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications?limit=100', headers: bearer(user) })
  ).json();
  const unread = (
    await harness.app.inject({ method: 'GET', url: '/api/notifications/unread-count', headers: bearer(user) })
  ).json().count;
  return { ids: list.data.map((n: { id: string }) => n.id), total: list.pagination.total, unread };
}

const isUnread = (count: number) => (event: StreamEvent) =>
  event.event === 'unread_count' && JSON.parse(event.data).count === count;
const isRetracted = (id: string) => (event: StreamEvent) =>
  event.event === 'retracted' && JSON.parse(event.data).id === id;
const retractedIds = (client: EventStreamClient) =>
  client.received.filter((event) => event.event === 'retracted').map((event) => JSON.parse(event.data).id);
const notificationIds = (client: EventStreamClient) =>
  client.received.filter((event) => event.event === 'notification').map((event) => event.id);

/** Delivers `event`, relays what it announced, and gives the id of the notification it stored for `user`, if any. */
async function delivered(event: EventEnvelope, user: TestUser): Promise<string | undefined> {
  const before = (await listed(user)).ids;
  await harness.deliver(event);
  await relay();
  return (await listed(user)).ids.find((id) => !before.includes(id));
}

describe('a retraction on the stream', () => {
  it('of a mention edited away: event retracted with its id, then the unread count, announced only while a stream is open', async () => {
    const bob = await harness.knownUser('Bob_Edited_Away');
    const client = await harness.stream(bob);
    await client.next(isUnread(0));
    const mention = mentionEvent(ada, bob);
    const id = (await delivered(mention, bob))!;
    await client.next((event) => event.id === id);
    await client.next(isUnread(1));

    await harness.deliver(mentionRemoved(mention));
    const announced = await relay();
    expect(announced.map((event) => [event.type, event.data])).toEqual([
      [notificationRetracted.type, { id, recipientId: bob.id, sequence: 2, unreadCount: 0 }],
    ]);
    const retracted = await client.next(isRetracted(id));
    expect(retracted.id).toBeUndefined();
    expect(JSON.parse(retracted.data)).toEqual({ id });
    await client.next(isUnread(0));

    // The same prompt again sends nothing twice: a later notification is the next thing the stream sends.
    await harness.hear(announced[0]!);
    const next = (await delivered(mentionEvent(ada, bob), bob))!;
    await client.next((event) => event.id === next);
    expect(retractedIds(client)).toEqual([id]);
    expect(notificationIds(client)).toEqual([id, next]);

    client.close();
    const unseen = mentionEvent(ada, bob);
    await delivered(unseen, bob);
    await harness.deliver(mentionRemoved(unseen));
    expect(await harness.published()).toEqual([]);
  });

  it('is sent once the stream resumes: after the notification retracted, or after one before it', async () => {
    const cy = await harness.knownUser('Cy_Resumes_Retracted');
    const [first, second] = [mentionEvent(ada, cy), mentionEvent(ada, cy)];
    const firstId = (await delivered(first, cy))!;
    const secondId = (await delivered(second, cy))!;
    await harness.deliver(mentionRemoved(first));
    await harness.deliver(mentionRemoved(second));

    // Cut off after the first: both retractions come, in the order they were made, and nothing else.
    const afterFirst = await harness.stream(cy, { headers: { 'last-event-id': firstId } });
    await afterFirst.next(isUnread(0));
    expect(retractedIds(afterFirst)).toEqual([firstId]);
    expect(notificationIds(afterFirst)).toEqual([]);

    // Cut off after the second, itself retracted since: the id still resumes, and both are taken back.
    const afterSecond = await harness.stream(cy, { headers: { 'last-event-id': secondId } });
    expect(afterSecond.status).toBe(200);
    await afterSecond.next(isUnread(0));
    expect(retractedIds(afterSecond)).toEqual([firstId, secondId]);

    // A new stream starts after both: no retraction of what it never showed, and it goes on live.
    const fresh = await harness.stream(cy);
    await fresh.next(isUnread(0));
    const live = (await delivered(mentionEvent(ada, cy), cy))!;
    for (const client of [afterFirst, afterSecond, fresh]) await client.next((event) => event.id === live);
    expect(retractedIds(fresh)).toEqual([]);
  });

  it('of a notification never sent, because it was retracted before the stream read it: nothing', async () => {
    const dee = await harness.knownUser('Dee_Never_Sent');
    const client = await harness.stream(dee);
    await client.next(isUnread(0));
    const mention = mentionEvent(ada, dee);
    await harness.deliver(mention);
    await harness.deliver(mentionRemoved(mention));
    // Both prompts come after both changes: the stream reads neither.
    await relay();
    const later = (await delivered(mentionEvent(ada, dee), dee))!;
    await client.next((event) => event.id === later);
    expect(notificationIds(client)).toEqual([later]);
    expect(retractedIds(client)).toEqual([]);
  });
});

describe('content deleted', () => {
  it.each(['recipe', 'post'] as const)(
    'retracts the tags in a %s and the mentions in its comments: list, counts and stream',
    async (type) => {
      const eve = await harness.knownUser(`Eve_Tagged_${type}`);
      const contentId = newId();
      const other = (await delivered(tagEvent(ada, eve, type), eve))!;
      const client = await harness.stream(eve);
      await client.next(isUnread(1));
      const tag = (await delivered(tagEvent(ada, eve, type, { contentId }), eve))!;
      const mention = (await delivered(mentionEvent(ada, eve, `${type}_comment`, { targetId: contentId }), eve))!;
      await client.next(isUnread(3));

      const deletion = deleted(type, contentId);
      await harness.deliver(deletion);
      await harness.deliver(deletion);
      expect((await relay()).map((event) => event.type)).toEqual([
        notificationRetracted.type,
        notificationRetracted.type,
      ]);
      await client.next(isRetracted(mention));
      await client.next(isUnread(1));
      expect(retractedIds(client)).toEqual([tag, mention]);
      expect(await listed(eve)).toEqual({ ids: [other], total: 1, unread: 1 });

      // What comes about it afterwards (a late tag, a mention in a comment that lost the race) is never stored.
      await harness.deliver(tagEvent(ada, eve, type, { contentId }));
      await harness.deliver(mentionEvent(ada, eve, `${type}_comment`, { targetId: contentId }));
      expect(await harness.published()).toEqual([]);
      expect(await listed(eve)).toEqual({ ids: [other], total: 1, unread: 1 });
    },
  );

  it('retracts the mentions in the comments of a deleted collection', async () => {
    const fay = await harness.knownUser('Fay_Collection');
    const collectionId = newId();
    await delivered(mentionEvent(ada, fay, 'collection_comment', { targetId: collectionId }), fay);
    await harness.deliver(deleted('collection', collectionId));
    expect(await listed(fay)).toEqual({ ids: [], total: 0, unread: 0 });
  });

  it('leaves nothing about it visible, whatever the order and repetition of its mentions, tags, their removals and its deletion', async () => {
    // Per item about the content: a tag or a mention, its mention maybe removed by the comments service as
    // it learns of the deletion; every event maybe twice; the deletion anywhere among them; some at once.
    const plan = fc.array(fc.record({ mention: fc.boolean(), removed: fc.boolean(), twice: fc.boolean() }), {
      minLength: 1,
      maxLength: 4,
    });
    const kinds = fc.constantFrom('recipe', 'post', 'collection');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        plan,
        kinds,
        fc.boolean(),
        fc.infiniteStream(fc.nat()),
        fc.boolean(),
        async (items, type, streamOpen, order, together) => {
          const user = await harness.knownUser(`Raced_${++run}`);
          const contentId = newId();
          const kept = (await delivered(tagEvent(ada, user), user))!;
          const client = streamOpen ? await harness.stream(user) : undefined;
          await client?.next(isUnread(1));
          const events = items.flatMap(({ mention, removed, twice }) => {
            const made =
              mention || type === 'collection'
                ? mentionEvent(ada, user, `${type}_comment`, { targetId: contentId })
                : tagEvent(ada, user, type as 'recipe' | 'post', { contentId });
            const own = [made, ...(removed && 'mentionId' in made.data ? [mentionRemoved(made as Mention)] : [])];
            return twice ? [...own, ...own] : own;
          });
          const deletion = deleted(type, contentId);
          const all = [...events, deletion, ...(order.next().value % 2 === 0 ? [deletion] : [])];
          const shuffled = all
            .map((event) => ({ event, key: order.next().value as number }))
            .sort((a, b) => a.key - b.key);
          if (together) await Promise.all(shuffled.map(({ event }) => harness.deliver(event)));
          else for (const { event } of shuffled) await harness.deliver(event);
          await relay();

          expect(await listed(user)).toEqual({ ids: [kept], total: 1, unread: 1 });
          expect(await harness.countsOf(user.id)).toEqual({ total: 1, unread: 1 });
          if (client) {
            // A barrier: one more notification, sent after whatever the stream had to say before it.
            const barrier = (await delivered(tagEvent(ada, user), user))!;
            await client.next((event) => event.id === barrier);
            await client.next(isUnread(2));
            const shown = notificationIds(client).filter((id) => id !== barrier);
            // Whatever it showed about the content, it took back.
            expect(retractedIds(client).sort()).toEqual(shown.sort());
            client.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
