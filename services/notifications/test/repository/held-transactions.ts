import { newId } from '@recipes/contracts';
import type { Pool, PoolClient } from '@recipes/db';
import { afterEach } from 'vitest';
import type { NewNotification } from '../../src/repository/rows.js';

/**
 * Transactions a test holds open on `pool` to force an order between lock takers: `begin` one (waiting at most
 * `lockTimeoutMs` for a lock, when given: PostgreSQL then fails the statement with 55P03), `commit` it; whatever is
 * still open after the test is rolled back.
 */
export function heldTransactions(pool: Pool, { lockTimeoutMs }: { lockTimeoutMs?: number } = {}) {
  const held: PoolClient[] = [];
  afterEach(async () => {
    for (const client of held.splice(0)) {
      await client.query('ROLLBACK');
      client.release();
    }
  });
  return {
    async begin(): Promise<PoolClient> {
      const client = await pool.connect();
      held.push(client);
      await client.query('BEGIN');
      if (lockTimeoutMs !== undefined) await client.query(`SET LOCAL lock_timeout = '${lockTimeoutMs}ms'`);
      return client;
    },
    async commit(client: PoolClient): Promise<void> {
      await client.query('COMMIT');
      held.splice(held.indexOf(client), 1);
      client.release();
    },
  };
}

/** The event a notification comes from, delivered for the first time. */
export const sourceEvent = () => ({ id: newId(), type: 'comment.mention.created' });

/** A mention of a recipe comment, to `fields.recipientId` (or a new user) about `fields.contentId` (or a new recipe). */
export const mention = (fields: Partial<NewNotification> = {}): NewNotification => ({
  recipientId: newId(),
  type: 'mention_recipe_comment',
  actorId: newId(),
  contentType: 'recipe',
  contentId: newId(),
  commentId: newId(),
  createdAt: '2026-11-25T10:00:00.000Z',
  ...fields,
});
