import { DEAD_LETTER_REASON_HEADER } from '@recipes/messaging';
import { brokerAdmin, eventually } from '@recipes/testing';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestSystem, type TestSystem } from '../support/system.js';
import { databaseOf, exchangeOf, mentionEvent, notificationsCount, queueOf } from './support.js';

/**
 * An event its handler rejects every time (data that breaks its contract) is tried EVENT_MAX_ATTEMPTS
 * times, then parked in the service's dead-letter queue and logged with its id; the events behind it
 * are handled meanwhile.
 */
const name = 'recipes_fault_poison';
const MAX_ATTEMPTS = 4;

let system: TestSystem;
let db: ReturnType<typeof databaseOf>;
let broker: Awaited<ReturnType<typeof brokerAdmin>>;

beforeAll(async () => {
  system = await startTestSystem({
    name,
    portOffset: 2800,
    env: { EVENT_MAX_ATTEMPTS: String(MAX_ATTEMPTS), EVENT_RETRY_DELAYS_MS: '100,200' },
    logs: 'pipe',
  });
  db = databaseOf(system);
  broker = await brokerAdmin(inject('amqpUrl'));
}, 60_000);
afterAll(async () => {
  await broker?.close();
  await db?.close();
  await system?.stop();
});

interface LogLine {
  msg: string;
  eventId?: string;
  attempt?: number;
}

function logOf(service: string): LogLine[] {
  return system.process(service)!.lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

it('dead-letters an event that always fails after EVENT_MAX_ATTEMPTS, logs its id, and goes on with the next', async () => {
  const queue = queueOf(name, 'notifications');
  const valid = mentionEvent();
  const poison = { ...valid, data: { ...(valid.data as object), mentionedUserId: 'not-a-user-id' } };
  const good = mentionEvent();
  // Broken on purpose: the event check (test/support/system.ts) must report it, and the run must not fail for it.
  system.conformance.expectBrokenEvents(poison.id);
  await broker.publish(exchangeOf(name), [poison]);
  await broker.publish(exchangeOf(name), [good]);

  // The good event is handled while the poison one waits in the delay queues (100, 200, 200 ms).
  await eventually(
    async () =>
      (await db.count(`${notificationsCount} WHERE source_event_id = $1`, [good.id])) === 1 ? true : undefined,
    5_000,
  );

  const deadLetter = await eventually(
    async () => {
      const message = await broker.channel.get(`${queue}.dlq`, { noAck: true });
      return message === false ? undefined : message;
    },
    15_000,
    100,
  );
  expect(deadLetter.properties.messageId).toBe(poison.id);
  expect(JSON.parse(deadLetter.content.toString()).id).toBe(poison.id);
  // Dead-lettered by the consumer on its last attempt (not by the broker over its delivery limit), saying why,
  // after waiting in the delay queues between attempts (the last delay twice).
  expect(deadLetter.properties.headers?.[DEAD_LETTER_REASON_HEADER]).toMatch(
    new RegExp(`^failed ${MAX_ATTEMPTS} attempts: `),
  );
  const deaths = deadLetter.properties.headers?.['x-death'] as Array<{ queue: string; reason: string; count: number }>;
  expect(deaths.map((death) => [death.queue, death.reason, death.count]).sort()).toEqual([
    [`${queue}.retry.1`, 'expired', 1],
    [`${queue}.retry.2`, 'expired', 2],
  ]);

  const attempts = logOf('notifications').filter((line) => line.eventId === poison.id);
  expect(attempts.map((line) => [line.attempt, line.msg])).toEqual([
    ...Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => [i + 1, 'event handler failed: will retry later']),
    [MAX_ATTEMPTS, 'event handler failed for the last time: dead-lettered'],
  ]);

  expect(await broker.messageCount(queue)).toBe(0);
  expect(await broker.messageCount(`${queue}.dlq`)).toBe(0); // the one taken above was the only one
  expect(await db.count(notificationsCount)).toBe(1);
  expect(
    await db.count('SELECT count(*)::int AS count FROM notifications.processed_events WHERE event_id = $1', [
      poison.id,
    ]),
  ).toBe(0);

  // The tap on the exchange saw the poison event and the check refused it against the catalogue; the good one passed.
  expect(system.conformance.brokenEventsSeen()).toContain(
    `${poison.id} (comment.mention.created v1): payload/data/mentionedUserId must match format "uuid"`,
  );
  expect(system.conformance.mismatches()).toEqual([]);
}, 60_000);
