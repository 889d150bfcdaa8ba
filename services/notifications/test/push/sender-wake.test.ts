import { newId } from '@recipes/contracts';
import { createPool, type PoolClient, withTransaction } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { WRITER_WAKE_SETTINGS } from '@recipes/outbox';
import { migratedDatabase, type MigratedDatabase } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handled } from '../../src/push/deliver.js';
import { PushSender } from '../../src/push/sender.js';
import { insertNotification } from '../../src/repository/notifications.js';
import type { DuePush } from '../../src/repository/push-deliveries.js';
import { saveSubscription } from '../../src/repository/push-subscriptions.js';
import { notificationsService } from '../../src/service.js';

/**
 * What wakes the push sender (src/push/sender.ts, migrations/017_push_writer_wake.sql): a push queued by its
 * own process's pool, made as the runtime makes it, wakes it once committed without a NOTIFY; a push any
 * other writer queues still notifies; and a wake-up waits a moment, so that a trickle goes in batches. The sender
 * polls once a minute here, so only a wake-up delivers in time.
 */
const silent = createLogger({ service: 'test', level: 'silent' });
const CHANNEL = `${notificationsService.name}_push`;
let migrated: MigratedDatabase;
let writerPool: ReturnType<typeof createPool>;
let listener: PoolClient;
let sender: PushSender;
const heard: string[] = [];
const delivered: string[] = [];

beforeAll(async () => {
  migrated = await migratedDatabase(notificationsService);
  writerPool = createPool({
    connectionString: migrated.database.url,
    schema: notificationsService.name,
    settings: WRITER_WAKE_SETTINGS,
    logger: silent,
  });
  listener = await migrated.pool.connect();
  listener.on('notification', ({ payload }) => heard.push(payload ?? ''));
  await listener.query(`LISTEN ${CHANNEL}`);
  sender = new PushSender({
    pool: writerPool,
    schema: notificationsService.name,
    databaseUrl: migrated.database.url,
    logger: silent,
    pollIntervalMs: 60_000,
    // Long enough that the five pushes of the gathering test are queued within it on a loaded machine.
    gatherMs: 1_000,
    deliver: async (push: DuePush): Promise<Handled> => {
      delivered.push(push.notification.id);
      return { kind: 'done' };
    },
  });
  sender.start();
});
afterAll(async () => {
  await sender?.stop();
  await listener?.query('UNLISTEN *');
  listener?.release();
  await writerPool?.end();
  await migrated?.close();
});

/** A recipient with one push subscription (of a browser that does not exist: nothing is sent here). */
async function subscribedRecipient() {
  const userId = newId();
  await withTransaction(writerPool, (tx) =>
    saveSubscription(
      tx,
      { id: newId(), userId, sessionId: null, endpoint: `https://push.example.net/${userId}`, p256dh: 'k', auth: 'a' },
      10,
    ),
  );
  return userId;
}

/** Stores a mention of `userId` on `pool`: its trigger queues a push for each of their subscriptions. */
async function mention(pool: typeof writerPool, userId: string) {
  const id = newId();
  await insertNotification(
    pool,
    id,
    { id: newId(), type: 'comment.mention.created' },
    {
      recipientId: userId,
      type: 'mention_recipe_comment',
      actorId: newId(),
      contentType: 'recipe',
      contentId: newId(),
      commentId: newId(),
      createdAt: new Date().toISOString(),
    },
  );
  return id;
}

/** Resolves once the listener has heard a NOTIFY sent after everything before this call committed. */
async function barrier(payload: string) {
  await migrated.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
  await expect.poll(() => heard.includes(payload), { timeout: 2_000 }).toBe(true);
}

describe('the push sender', () => {
  it('is woken by its own process’s commit, with no NOTIFY sent', async () => {
    const id = await mention(writerPool, await subscribedRecipient());
    await expect.poll(() => delivered.includes(id), { timeout: 5_000 }).toBe(true);
    await barrier('after the writer');
    expect(heard).toEqual(['after the writer']);
  });

  it('is woken by the NOTIFY of a push any other writer queues', async () => {
    const id = await mention(migrated.pool, await subscribedRecipient());
    await expect.poll(() => delivered.includes(id), { timeout: 5_000 }).toBe(true);
    await barrier('after the other writer');
    expect(heard).toEqual(['after the writer', '', 'after the other writer']);
  });

  it('gathers the pushes queued within a moment of each other into one claim', async () => {
    const recipients = await Promise.all(Array.from({ length: 5 }, subscribedRecipient));
    const claims: string[] = [];
    const query = writerPool.query.bind(writerPool);
    writerPool.query = ((...args: Parameters<typeof query>) => {
      if (typeof args[0] === 'string' && args[0].trim().startsWith('WITH picked')) claims.push(args[0]);
      return query(...args);
    }) as typeof writerPool.query;
    try {
      const ids = await Promise.all(recipients.map((userId) => mention(writerPool, userId)));
      await expect.poll(() => ids.filter((id) => delivered.includes(id)).length, { timeout: 5_000 }).toBe(5);
    } finally {
      writerPool.query = query as typeof writerPool.query;
    }
    expect(claims).toHaveLength(1);
  });
});
