import { newId } from '@recipes/contracts';
import type { PoolClient } from '@recipes/db';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { insertNotification } from '../../src/repository/notifications.js';
import { retractAboutContent } from '../../src/repository/retractions.js';
import { notificationsService } from '../../src/service.js';
import { heldTransactions, mention, sourceEvent } from './held-transactions.js';

/**
 * The content's lock (migrations/011 and 018): storing a notification about a recipe takes it shared, deleting
 * the recipe takes it alone. One store is held open in a transaction; what else is tried meanwhile waits at most
 * `lock_timeout`, which PostgreSQL reports as 55P03.
 */
const pool = migratedPool(notificationsService);
const { begin: transaction } = heldTransactions(pool, { lockTimeoutMs: 300 });

const recipe = () => ({ type: 'recipe' as const, id: newId() });

const store = (db: PoolClient, content: { type: 'recipe'; id: string }) =>
  insertNotification(db, newId(), sourceEvent(), mention({ contentType: content.type, contentId: content.id }));

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
