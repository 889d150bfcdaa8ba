import { randomUUID } from 'node:crypto';
import { createEvent, userCreated } from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { createTestDatabase, eventually, type TestDatabase } from '@recipes/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, handleOnce, outboxMigrations } from '../src/index.js';

const logger = createLogger({ service: 'outbox-test', level: process.env.LOG_LEVEL ?? 'silent' });
const userEvent = () =>
  createEvent(
    userCreated,
    { id: randomUUID(), username: 'ada', avatarUrl: null, revision: 0 },
    { producer: 'users', correlationId: 'req-1' },
  );

describe('outbox tables', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    const settings = { databaseUrl: database.url, schema: 'svc', sets: [outboxMigrations], logger };
    await migrate(settings);
    await migrate(settings); // a second run finds nothing to do
    pool = createPool({ connectionString: database.url, schema: 'svc', applicationName: 'outbox-tables-test', logger });
    await pool.query('CREATE TABLE effects (event_id uuid NOT NULL)');
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('creates its tables in the service schema and notifies once per insert statement', async () => {
    const { rows } = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'svc' ORDER BY table_name`,
    );
    expect(rows.map((row) => row.table_name)).toEqual(['effects', 'outbox', 'outbox_migrations', 'processed_events']);

    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const notifications: string[] = [];
    listener.on('notification', (message) => notifications.push(message.channel));
    await listener.query('LISTEN svc_outbox');
    await enqueue(pool, userEvent(), userEvent(), userEvent());
    await eventually(async () => notifications.length > 0 || undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(notifications).toEqual(['svc_outbox']);
    await listener.end();

    const stored = await pool.query<{ n: number; types: string[] }>(
      'SELECT count(*)::int AS n, array_agg(DISTINCT type) AS types FROM outbox',
    );
    expect(stored.rows[0]).toEqual({ n: 3, types: ['user.created'] });
    await pool.query('DELETE FROM outbox');
  });

  const effectsOf = async (eventId: string) =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM effects WHERE event_id = $1', [eventId])).rows[0]!
      .n;
  const recorded = async (eventId: string) =>
    (await pool.query('SELECT event_type FROM processed_events WHERE event_id = $1', [eventId])).rows;

  it('handleOnce runs the effect of a redelivered event only once', async () => {
    const event = userEvent();
    const effect = async (client: pg.PoolClient) => {
      await client.query('INSERT INTO effects (event_id) VALUES ($1)', [event.id]);
    };
    expect(await handleOnce(pool, event, effect)).toBe(true);
    expect(await handleOnce(pool, event, effect)).toBe(false);
    expect(await effectsOf(event.id)).toBe(1);
    expect(await recorded(event.id)).toEqual([{ event_type: 'user.created' }]);
  });

  it('handleOnce rolls back both the effect and the record when the effect throws, so a retry runs it', async () => {
    const event = userEvent();
    await expect(
      handleOnce(pool, event, async (client) => {
        await client.query('INSERT INTO effects (event_id) VALUES ($1)', [event.id]);
        throw new Error('effect failed');
      }),
    ).rejects.toThrow('effect failed');
    expect(await effectsOf(event.id)).toBe(0);
    expect(await recorded(event.id)).toEqual([]);

    expect(
      await handleOnce(
        pool,
        event,
        async (client) => void (await client.query('INSERT INTO effects (event_id) VALUES ($1)', [event.id])),
      ),
    ).toBe(true);
    expect(await effectsOf(event.id)).toBe(1);
  });

  it('handleOnce lets only one of several concurrent deliveries of an event through', async () => {
    const event = userEvent();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        handleOnce(pool, event, async (client) => {
          await client.query('INSERT INTO effects (event_id) VALUES ($1)', [event.id]);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await effectsOf(event.id)).toBe(1);
  });
});
