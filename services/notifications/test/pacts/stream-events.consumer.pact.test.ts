import { asynchronousBodyHandler, MatchersV3, MessageConsumerPact } from '@pact-foundation/pact';
import {
  eventEnvelopeSchema,
  notificationCreated,
  notificationsRead,
  notificationsStreamsReplaced,
} from '@recipes/contracts';
import { eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import type { EventStreamClient, StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../support.js';
import { delivery, isoMillis } from './support.js';

/**
 * What the streams side of notifications needs of the events its own service publishes, heard by every
 * instance on a queue of its own (docs/architecture.md §9): each message is handed to the real instance
 * subscription (`hear`), and a real stream of the example's recipient, open on this instance, shows the
 * effect. A stream reads what it sends from the database, so the examples only prompt it.
 */
const { eachLike, integer, like, uuid } = MatchersV3;

// One pact per file: each verification writes every interaction seen so far over it.
const pact = new MessageConsumerPact({
  consumer: 'notifications-streams',
  provider: pactNames.events('notifications'),
  dir: pactsDir,
  pactfileWriteMode: 'overwrite',
});

/** `actor` is known to the read model, so that a stream shows the notifications it causes. */
let harness: NotificationsHarness, actor: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [actor],
    } = await notificationsHarnessWith(['Ada_Prompts'])),
);
afterAll(() => harness.close());

/** The example's recipient, as a user with a token; each interaction has its own. */
const recipient = (id: string, username: string): TestUser => ({
  id,
  username,
  avatarUrl: null,
  revision: 0,
  token: harness.tokenFor({ id, username }),
});

async function stream(user: TestUser): Promise<EventStreamClient> {
  const client = await harness.stream(user);
  expect(client.status).toBe(200);
  return client;
}

/** Stores a notification for `user` from a mention by `actor`, as the comments service's event would; its id. */
async function mentioned(user: TestUser): Promise<string> {
  await harness.deliver(mentionEvent(actor, user));
  // Whatever the service announced is taken and not relayed: only the pact's message prompts the streams here.
  await harness.published();
  const listing = await harness.app.inject({ method: 'GET', url: '/api/notifications', headers: bearer(user) });
  return (listing.json().data as { id: string }[])[0]!.id;
}

/** A message as this instance's own queue hands it over, applied by the real instance subscription. */
const heardBy = () => asynchronousBodyHandler(async (body: unknown) => harness.hear(eventEnvelopeSchema.parse(body)));

const isUnread = (count: number) => (event: StreamEvent) =>
  event.event === 'unread_count' && JSON.parse(event.data).count === count;
const notifications = (client: EventStreamClient) => client.received.filter((event) => event.event === 'notification');

describe('notification.created', () => {
  const RECIPIENT = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b01';

  it('makes the recipient’s open stream send the new notification and unread count', async () => {
    const user = recipient(RECIPIENT, 'Bo_Prompted');
    const client = await stream(user);
    await client.next(isUnread(0));
    const id = await mentioned(user);
    expect(notifications(client)).toEqual([]);

    const message = eventMessage(notificationCreated, {
      id: uuid('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b02'),
      recipientId: uuid(RECIPIENT),
      sequence: integer(1),
      type: like('mention_recipe_comment'),
      actorId: uuid('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b03'),
      contentType: like('recipe'),
      contentId: uuid('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b04'),
      commentId: uuid('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b05'),
      createdAt: isoMillis('2026-11-22T10:00:00.000Z'),
      unreadCount: integer(1),
    });
    await delivery(
      pact,
      'a notification.created for a user with an open stream',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b06',
      message,
    ).verify(heardBy());

    const sent = await client.next((event) => event.event === 'notification');
    expect(sent.id).toBe(id);
    await client.next(isUnread(1));
    expect(notifications(client).map((event) => event.id)).toEqual([id]);
  });
});

describe('notifications.read', () => {
  const RECIPIENT = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b11';

  it('makes the recipient’s open stream send the new unread count', async () => {
    const user = recipient(RECIPIENT, 'Cy_Reader');
    const id = await mentioned(user);
    const client = await stream(user);
    await client.next(isUnread(1));
    const response = await harness.app.inject({
      method: 'PATCH',
      url: '/api/notifications/read',
      headers: bearer(user),
      payload: { notificationIds: [id] },
    });
    expect(response.json().updated).toBe(1);
    await harness.published();
    expect(client.received.some(isUnread(0))).toBe(false);

    const message = eventMessage(notificationsRead, {
      recipientId: uuid(RECIPIENT),
      updated: integer(1),
      unreadCount: integer(0),
    });
    await delivery(
      pact,
      'a notifications.read for a user with an open stream',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b12',
      message,
    ).verify(heardBy());

    await client.next(isUnread(0));
  });
});

describe('notifications.streams.replaced', () => {
  const RECIPIENT = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b21';

  it('ends, with event: replaced, the recipient’s stream it names, and only that one', async () => {
    const user = recipient(RECIPIENT, 'Di_Replaced');
    const oldest = await stream(user);
    await oldest.next(isUnread(0));
    const { rows } = await harness.pool.query<{ id: string }>('SELECT id FROM open_streams WHERE recipient_id = $1', [
      RECIPIENT,
    ]);
    expect(rows).toHaveLength(1);
    const newer = await stream(user);
    await newer.next(isUnread(0));
    const held = harness.parts.streams.hub.size;

    // A stream's id is made as it opens, so the example names the one opened here.
    const message = eventMessage(notificationsStreamsReplaced, {
      recipientId: uuid(RECIPIENT),
      streamIds: eachLike(uuid(rows[0]!.id)),
    });
    await delivery(
      pact,
      'a notifications.streams.replaced naming an open stream of a user',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4b22',
      message,
    ).verify(heardBy());

    await oldest.next((event) => event.event === 'replaced');
    await oldest.ended;
    // The hub ends streams as it hears the message: the one not named is still held.
    expect(harness.parts.streams.hub.size).toBe(held - 1);
    expect(newer.received.some((event) => event.event === 'replaced')).toBe(false);
  });
});
