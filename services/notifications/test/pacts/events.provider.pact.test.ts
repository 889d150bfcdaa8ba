import {
  type EventEnvelope,
  newId,
  notificationCreated,
  notificationsRead,
  notificationsStreamsReplaced,
  notificationsUserErased,
} from '@recipes/contracts';
import {
  erasureConfirmation,
  type EventProducer,
  pactNames,
  pactsForProvider,
  unmadeMessages,
  verifyEventsProvider,
} from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../support.js';

/**
 * Every pact for the events notifications produces, verified against events made by the real app and
 * read back from its outbox: a mention event stores a notification (`record` writes notification.created,
 * for a user with a stream open), PATCH /read marks it read (notifications.read, the same), and a sixth
 * stream of one user replaces the oldest (notifications.streams.replaced). Their consumer is this service's own streams
 * side (`notifications-streams`);
 * the catalogue lists no consumer service, so there is no consumer whose pact could be missing.
 */
const provider = pactNames.events('notifications');
const pactFiles = pactsForProvider(provider);

let harness: NotificationsHarness, actor: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [actor],
    } = await notificationsHarnessWith(['Ada_Provider'])),
);
afterAll(() => harness.close());

const user = (): TestUser => {
  const id = newId();
  const username = `reader_${id.slice(-8)}`;
  return { id, username, avatarUrl: null, revision: 0, token: harness.tokenFor({ id, username }) };
};

/** The one event of `type` the service wrote to its outbox by `act`; whatever was there before is taken first. */
async function written(type: string, act: () => Promise<void>): Promise<EventEnvelope> {
  await harness.published();
  await act();
  const events = (await harness.published()).filter((event) => event.type === type);
  expect(events).toHaveLength(1);
  return events[0]!;
}

/** A user with a stream open: the events for the streams are written only for such a one. */
async function streamingUser(): Promise<TestUser> {
  const streamer = user();
  const client = await harness.stream(streamer);
  await client.next((event) => event.event === 'unread_count');
  return streamer;
}

/** Stores a notification for `recipient`, from a mention; its id. */
async function notify(recipient: TestUser): Promise<string> {
  const created = await written(notificationCreated.type, () => harness.deliver(mentionEvent(actor, recipient)));
  return (created.data as { id: string }).id;
}

const producers: Record<string, EventProducer> = {
  [notificationCreated.type]: async () => {
    const recipient = await streamingUser();
    return written(notificationCreated.type, () => harness.deliver(mentionEvent(actor, recipient)));
  },
  [notificationsRead.type]: async () => {
    const reader = await streamingUser();
    const id = await notify(reader);
    return written(notificationsRead.type, async () => {
      const response = await harness.app.inject({
        method: 'PATCH',
        url: '/api/notifications/read',
        headers: bearer(reader),
        payload: { notificationIds: [id] },
      });
      expect(response.json().updated).toBe(1);
    });
  },
  [notificationsStreamsReplaced.type]: async () => {
    const streamer = user();
    return written(notificationsStreamsReplaced.type, async () => {
      for (let i = 0; i < 6; i += 1) {
        const client = await harness.stream(streamer);
        expect(client.status).toBe(200);
        // Opened (its row written, the oldest replaced) before its first frame: the next one is newer.
        await client.next((event) => event.event === 'unread_count');
      }
    });
  },
  [notificationsUserErased.type]: () => erasureConfirmation(harness, 'notifications'),
};

describe(`${provider} provider`, () => {
  it('honours every consumer pact', async () => {
    // The streams side's pact is written earlier in this run.
    await verifyEventsProvider(provider, pactFiles, producers);
  }, 60_000);

  it('makes every event its consumers expect of it', () => {
    expect(unmadeMessages(pactFiles, producers)).toEqual([]);
  });
});
