import { createEvent, eventCatalogue, type EventEnvelope, newId, userCreated, userUpdated } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import type { RunningService } from '@recipes/runtime';
import { eventually } from '@recipes/testing';
import { catalogueDisagreements, serviceEventsOf } from '@recipes/testing/catalogue';
import { type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationsConfig } from '../src/config.js';
import { notificationsService } from '../src/service.js';
import { bearer, mentionEvent, snapshotOf, tagEvent, type TestUser } from './support.js';

/** The notifications service as it runs in production, fed through the real broker. */
let running: ServiceOnBroker<NotificationsConfig>;
let service: RunningService;
/** The service's error lines, to see a failed attempt happen. */
const errors: Array<{ eventId?: string; msg: string }> = [];

beforeAll(async () => {
  // No users service here: every actor is announced by its user.created first.
  running = await serviceOnBroker(notificationsService, {
    env: { USERS_INTERNAL_URL: 'http://127.0.0.1:1', EVENT_RETRY_DELAYS_MS: '50' },
    logger: createLogger({
      service: 'notifications',
      level: 'error',
      destination: { write: (line: string) => void errors.push(JSON.parse(line)) },
    }),
  });
  ({ service } = running);
});

afterAll(() => running?.close());

/**
 * Publishes `event` as the outbox relay does, straight to the broker, as the comments, content and users services do.
 */
const publish = (event: EventEnvelope) => running.publish(event);

async function registered(username: string, avatarUrl: string | null = null): Promise<TestUser> {
  const snapshot = { id: newId(), username, avatarUrl, revision: 0 };
  const user = { ...snapshot, token: running.tokenFor(snapshot) };
  await publish(
    createEvent(userCreated, snapshotOf(user), { producer: 'users', correlationId: `register-${username}` }),
  );
  // Events are handled concurrently: a mention published next could otherwise overtake this one.
  await eventually(async () =>
    (await service.pool.query('SELECT 1 FROM users WHERE id = $1', [user.id])).rowCount ? true : undefined,
  );
  return user;
}

async function notificationsOf(user: TestUser) {
  const response = await service.app.inject({ method: 'GET', url: '/api/notifications', headers: bearer(user) });
  expect(response.statusCode).toBe(200);
  return response.json().data as Array<{
    type: string;
    actor: { id: string; avatarUrl: string | null };
    commentId?: string;
    contentId: string;
  }>;
}

/** Waits until `user` has `count` notifications, then a little longer to see that no more come. */
async function settledNotifications(user: TestUser, count: number) {
  await eventually(async () => ((await notificationsOf(user)).length >= count ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 500));
  return notificationsOf(user);
}

async function processedCount(eventId: string): Promise<number> {
  const { rows } = await service.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1',
    [eventId],
  );
  return rows[0]!.n;
}

describe('the notifications service definition', () => {
  it('agrees with the event catalogue: what it handles, what it publishes, what its SQL writes', () => {
    const events = serviceEventsOf(notificationsService);
    expect(events.handlers.length).toBeGreaterThan(0);
    expect(catalogueDisagreements(eventCatalogue, events)).toEqual([]);
  });
});

describe('events through the broker', () => {
  let ada: TestUser;
  beforeAll(async () => {
    ada = await registered('Ada_Broker');
  });

  it('turns a mention into one notification, and the same envelope delivered twice into no second one', async () => {
    const bob = await registered('Bob_Broker');
    const mention = mentionEvent(ada, bob, 'post_comment');
    await publish(mention);
    await publish(mention);
    const [notification, ...more] = await settledNotifications(bob, 1);
    expect(more).toEqual([]);
    expect(notification).toMatchObject({
      type: 'mention_post_comment',
      actor: { id: ada.id },
      commentId: mention.data.commentId,
    });
    expect(await processedCount(mention.id)).toBe(1);
  });

  it('turns a tag into one notification, however many times it is delivered', async () => {
    const bob = await registered('Bob_Tagged');
    const tag = tagEvent(ada, bob, 'recipe');
    await Promise.all([publish(tag), publish(tag), publish(tag)]);
    const notifications = await settledNotifications(bob, 1);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({ type: 'tag_recipe', contentId: tag.data.contentId });
    expect(notifications[0]).not.toHaveProperty('commentId');
  });

  it('keeps nothing of a delivery that failed midway, and creates the notification once on redelivery', async () => {
    const bob = await registered('Bob_Retried');
    const mention = mentionEvent(ada, bob, 'recipe_comment');
    // The insert's counting step fails while the table is away; the event id recorded before it must go too.
    await service.pool.query('ALTER TABLE notification_counts RENAME TO notification_counts_away');
    await publish(mention);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await service.pool.query('ALTER TABLE notification_counts_away RENAME TO notification_counts');
    const notifications = await settledNotifications(bob, 1);
    expect(errors).toContainEqual(
      expect.objectContaining({ eventId: mention.id, msg: 'event handler failed: will retry later' }),
    );
    expect(notifications).toHaveLength(1);
    expect(await processedCount(mention.id)).toBe(1);
  });

  it('tells nobody about a mention or a tag of oneself', async () => {
    const cy = await registered('Cy_Self');
    const bob = await registered('Bob_After_Self');
    await publish(mentionEvent(cy, cy));
    await publish(tagEvent(cy, cy, 'post'));
    // Published before bob's: by the time bob's is listed and the wait is over, they have been handled.
    await publish(mentionEvent(cy, bob));
    await settledNotifications(bob, 1);
    expect(await notificationsOf(cy)).toEqual([]);
  });

  it('shows the actor’s new avatar after their user.updated', async () => {
    const dee = await registered('Dee_Avatar');
    const bob = await registered('Bob_Avatar');
    await publish(tagEvent(dee, bob, 'post'));
    await settledNotifications(bob, 1);
    await publish(
      createEvent(
        userUpdated,
        { ...snapshotOf(dee), avatarUrl: 'https://cdn.example.com/dee.png', revision: 1 },
        { producer: 'users', correlationId: 'c' },
      ),
    );
    await eventually(async () =>
      (await notificationsOf(bob))[0]?.actor.avatarUrl === 'https://cdn.example.com/dee.png' ? true : undefined,
    );
  });
});
