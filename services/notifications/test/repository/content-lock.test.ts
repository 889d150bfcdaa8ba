import { newId } from '@recipes/contracts';
import type { PoolClient } from '@recipes/db';
import { migratedPool } from '@recipes/testing/service';
import { afterEach, describe, expect, it } from 'vitest';
import { insertNotification } from '../../src/repository/notifications.js';
import { retractAboutContent } from '../../src/repository/retractions.js';
import { notificationsService } from '../../src/service.js';

/**
 * The content's lock (migrations/011 and 018): storing a notification about a recipe takes it shared, deleting
 * the recipe takes it alone. One store is held open in a transaction; what else is tried meanwhile waits at most
 * `lock_timeout`, which PostgreSQL reports as 55P03.
 */
const pool = migratedPool(notificationsService);
const open: PoolClient[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) {
    await client.query('ROLLBACK');
    client.release();
  }
});

const recipe = () => ({ type: 'recipe' as const, id: newId() });

/** A transaction of its own, left open, that waits for a lock at most 300 ms. */
async function transaction() {
  const client = await pool.connect();
  open.push(client);
  await client.query('BEGIN');
  await client.query("SET LOCAL lock_timeout = '300ms'");
  return client;
}

const store = (db: PoolClient, content: { type: 'recipe'; id: string }) =>
  insertNotification(
    db,
    newId(),
    { id: newId(), type: 'comment.mention.created' },
    {
      recipientId: newId(),
      type: 'mention_recipe_comment',
      actorId: newId(),
      contentType: content.type,
      contentId: content.id,
      commentId: newId(),
      createdAt: new Date().toISOString(),
    },
  );

describe('the content’s lock', () => {
  it('lets two stores about one recipe go at once', async () => {
    const content = recipe();
    await store(await transaction(), content);
    await expect(store(await transaction(), content)).resolves.toMatchObject({ sequence: 1 });
  });

  it('keeps the recipe’s deletion waiting while a store about it is open', async () => {
    const content = recipe();
    await store(await transaction(), content);
    await expect(retractAboutContent(await transaction(), content, new Date().toISOString())).rejects.toMatchObject({
      code: '55P03',
    });
  });

  it('keeps a store waiting while the recipe’s deletion is open', async () => {
    const content = recipe();
    await retractAboutContent(await transaction(), content, new Date().toISOString());
    await expect(store(await transaction(), content)).rejects.toMatchObject({ code: '55P03' });
  });
});
