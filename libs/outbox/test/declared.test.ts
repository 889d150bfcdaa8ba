import { randomUUID } from 'node:crypto';
import { createEvent, UndeclaredEventError, userCreated } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../src/index.js';
import { type OutboxDatabase, outboxDatabase } from './support.js';

const logger = createLogger({ service: 'outbox-test', level: process.env.LOG_LEVEL ?? 'silent' });
const user = () => ({ id: randomUUID(), username: 'ada', avatarUrl: null, revision: 0 });

/** A type defined like the real ones but never added to the catalogue. */
const userRenamed = { ...userCreated, type: 'user.renamed' };

describe('enqueue: only what the catalogue declares', () => {
  let outbox: OutboxDatabase;
  let pool: Pool;

  beforeAll(async () => {
    outbox = await outboxDatabase({ schema: 'users', applicationName: 'outbox-declared-test', logger });
    pool = outbox.pool;
  });
  afterAll(() => outbox?.drop());

  const outboxTypes = async () =>
    (await pool.query<{ type: string }>('SELECT type FROM outbox ORDER BY type')).rows.map((row) => row.type);

  it('writes an event from its declared producer', async () => {
    await enqueue(pool, createEvent(userCreated, user(), { producer: 'users', correlationId: 'req-1' }));
    expect(await outboxTypes()).toEqual(['user.created']);
    await pool.query('DELETE FROM outbox');
  });

  it('refuses a type the catalogue does not list, and writes none of the batch', async () => {
    const declared = createEvent(userCreated, user(), { producer: 'users', correlationId: 'req-2' });
    const undeclared = createEvent(userRenamed, user(), { producer: 'users', correlationId: 'req-2' });
    await expect(enqueue(pool, declared, undeclared)).rejects.toThrow(
      new UndeclaredEventError('event user.renamed version 1 is not in the event catalogue'),
    );
    expect(await outboxTypes()).toEqual([]);
  });

  it('refuses a catalogued type published by a service other than its producer', async () => {
    const impostor = createEvent(userCreated, user(), { producer: 'content', correlationId: 'req-3' });
    await expect(enqueue(pool, impostor)).rejects.toThrow('event user.created is produced by users, not by content');
    expect(await outboxTypes()).toEqual([]);
  });
});
