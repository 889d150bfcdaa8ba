import { brokerAdmin, eventually } from '@recipes/testing';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { startTestSystem } from '../support/system.js';
import { databaseOf, exchangeOf, mentionEvent, notificationsCount, queueOf, settlesAt } from './support.js';

/**
 * The notifications service killed with SIGKILL in the middle of a burst of mention events: the broker
 * redelivers what it had not acknowledged and the inbox drops what it had already stored, so after a
 * restart every event is a notification, exactly once.
 */
const name = 'recipes_fault_consumer_crash';
const BURST = 2_000;

let system: StartedSystem;
let db: ReturnType<typeof databaseOf>;
let broker: Awaited<ReturnType<typeof brokerAdmin>>;

beforeAll(async () => {
  system = await startTestSystem({ name, portOffset: 2400 });
  db = databaseOf(system);
  broker = await brokerAdmin(inject('amqpUrl'));
}, 60_000);
afterAll(async () => {
  await broker?.close();
  await db?.close();
  await system?.stop();
});

it('stores every event of a burst once although the consumer was killed in the middle of it', async () => {
  const notifications = system.process('notifications')!;
  const queue = queueOf(name, 'notifications');
  // With the consumer stopped the burst waits in its queue, so the restart below meets all of it at once.
  await notifications.kill('SIGTERM');
  await broker.publish(
    exchangeOf(name),
    Array.from({ length: BURST }, () => mentionEvent()),
  );
  expect(await broker.messageCount(queue)).toBe(BURST);

  // The process consumes before it reports ready, so do not wait for that: kill it as soon as some are stored.
  const starting = notifications.start().catch(() => undefined);
  await eventually(async () => ((await db.count(notificationsCount)) >= 100 ? true : undefined), 30_000, 5);
  expect(await notifications.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  await starting;
  const storedBeforeCrash = await db.count(notificationsCount);
  expect(storedBeforeCrash, 'killed in the middle of the burst, not after it').toBeLessThan(BURST);

  await notifications.start();
  await settlesAt(() => db.count(notificationsCount), BURST, { timeoutMs: 30_000 });
  expect(await db.count('SELECT count(*)::int AS count FROM notifications.processed_events')).toBe(BURST);
  expect(await db.count('SELECT count(DISTINCT source_event_id)::int AS count FROM notifications.notifications')).toBe(
    BURST,
  );
  // Nothing left over, and nothing given up on: a delivery cut short by the crash is no failed attempt to dead-letter.
  expect(await broker.messageCount(queue)).toBe(0);
  expect(await broker.messageCount(`${queue}.dlq`)).toBe(0);
}, 90_000);
