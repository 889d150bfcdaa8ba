import {
  type ContentSnapshot,
  postCreated,
  postDeleted,
  recipeCreated,
  recipeDeleted,
  recipeUpdated,
} from '@recipes/contracts';
import { ContentDirectory, contentDirectoryHandlers } from '@recipes/directory';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { collectionsService } from '../../src/service.js';
import { eventsConsumer } from './support.js';

/**
 * What the collections service needs of the content service's events: the content directory's handlers, on a real
 * database.
 */
const pool = migratedPool(collectionsService);
const receives = eventsConsumer<ContentSnapshot>(
  'content',
  pool,
  contentDirectoryHandlers(new ContentDirectory({ pool, contentUrl: 'http://127.0.0.1:1' })),
);

const snapshot = (id: string, overrides: Partial<ContentSnapshot> = {}): ContentSnapshot => ({
  id,
  authorId: '0190f5a4-0000-7000-8000-00000000a001',
  title: 'Velvia 50',
  coverImageUrl: 'https://cdn.example.com/velvia.jpg',
  deleted: false,
  revision: 0,
  createdAt: '2026-11-22T10:00:00.000Z',
  ...overrides,
});

async function stored(id: string) {
  const { rows } = await pool.query(
    'SELECT content_type, title, cover_image_url, deleted, revision FROM content_items WHERE id = $1',
    [id],
  );
  return rows[0];
}

describe('content events consumed by collections', () => {
  it('recipe.created: the recipe becomes known, with its title and cover', async () => {
    const recipe = snapshot('0190f5a4-0000-7000-8000-00000000c001');
    await receives('a recipe with a cover image is published', recipeCreated, recipe);
    expect(await stored(recipe.id)).toEqual({
      content_type: 'recipe',
      title: 'Velvia 50',
      cover_image_url: recipe.coverImageUrl,
      deleted: false,
      revision: 0,
    });
  });

  it('recipe.updated: saved items show the new title and cover', async () => {
    const recipe = snapshot('0190f5a4-0000-7000-8000-00000000c002', { title: 'Velvia 100', revision: 1 });
    await receives('a recipe with a cover image has a new title', recipeUpdated, recipe);
    expect(await stored(recipe.id)).toMatchObject({ title: 'Velvia 100', revision: 1 });
  });

  it('recipe.deleted: the recipe leaves everyone’s saved items', async () => {
    // A deleted recipe keeps no text (content's migrations/005): its event has no title and no cover.
    const recipe = snapshot('0190f5a4-0000-7000-8000-00000000c003', {
      title: '',
      coverImageUrl: null,
      deleted: true,
      revision: 1,
    });
    // Someone saved it while it was alive.
    await pool.query(
      `INSERT INTO content_items (id, content_type, author_id, title, deleted, revision, created_at) VALUES ($1, 'recipe', $2, 'x', false, 0, now())`,
      [recipe.id, recipe.authorId],
    );
    await pool.query(
      `INSERT INTO saved_items (id, user_id, content_type, content_id) VALUES (gen_random_uuid(), gen_random_uuid(), 'recipe', $1)`,
      [recipe.id],
    );
    await receives('a recipe is deleted', recipeDeleted, recipe);
    expect(await stored(recipe.id)).toMatchObject({ deleted: true });
    expect((await pool.query('SELECT 1 FROM saved_items WHERE content_id = $1', [recipe.id])).rowCount).toBe(0);
  });

  it('post.created: the post becomes known', async () => {
    const post = snapshot('0190f5a4-0000-7000-8000-00000000c004', { title: 'A walk in Lisbon' });
    await receives('a post with a cover image is published', postCreated, post);
    expect(await stored(post.id)).toMatchObject({ content_type: 'post', title: 'A walk in Lisbon', deleted: false });
  });

  it('post.deleted: the post can no longer be saved', async () => {
    const post = snapshot('0190f5a4-0000-7000-8000-00000000c005', {
      title: '',
      coverImageUrl: null,
      deleted: true,
      revision: 1,
    });
    await receives('a post is deleted', postDeleted, post);
    expect(await stored(post.id)).toMatchObject({ content_type: 'post', deleted: true });
  });
});
