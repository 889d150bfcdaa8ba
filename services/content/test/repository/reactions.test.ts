import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dropReactionsOf, setReaction } from '../../src/repository/reactions.js';
import { markRecipeDeleted } from '../../src/repository/recipes.js';
import { contentDatabase } from '../support.js';

/**
 * A deleted account's favorites and reposts go with its erasure (docs/api.md §11.2), each off its
 * recipe's count: a recipe deleted meanwhile by its author included, whose count no request changes
 * any more, so that every recipe's count still equals its rows.
 */
const db = contentDatabase();

async function recipe(): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO recipes (id, author_id, title, description, camera_model, film_simulation, created_at)
     VALUES ($1, $2, 'R', '', 'X-T5', 'Acros', now())`,
    [id, randomUUID()],
  );
  return id;
}

const countsOf = async (id: string) =>
  (
    await db.pool.query<{ favorites: number; rows: number }>(
      `SELECT favorite_count AS favorites, (SELECT count(*)::int FROM recipe_favorites WHERE recipe_id = $1) AS rows
         FROM recipes WHERE id = $1`,
      [id],
    )
  ).rows[0]!;

describe('dropReactionsOf', () => {
  it('takes a leaver’s favorites off live and deleted recipes alike, in batches, the counts equal to the rows', async () => {
    const [leaver, stays] = [randomUUID(), randomUUID()];
    const live = await recipe();
    const deletedLater = await recipe();
    for (const id of [live, deletedLater]) {
      await setReaction(db.pool, 'favorite', id, leaver, true);
      await setReaction(db.pool, 'favorite', id, stays, true);
    }
    // Its author deletes it while the leaver's favorite is still on it.
    await markRecipeDeleted(db.pool, deletedLater);

    expect(await dropReactionsOf(db.pool, 'favorite', leaver, 1)).toBe(1);
    expect(await dropReactionsOf(db.pool, 'favorite', leaver, 1)).toBe(1);
    expect(await dropReactionsOf(db.pool, 'favorite', leaver, 1)).toBe(0);
    for (const id of [live, deletedLater]) expect(await countsOf(id)).toEqual({ favorites: 1, rows: 1 });
  });
});
