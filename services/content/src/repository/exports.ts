import type { Queryable } from '@recipes/db';
import type { Post } from './posts.js';
import { type RecipeSummary, summaryColumns } from './recipes.js';
import { type Stored, withIsoTimestamp } from './rows.js';

/** The author's live recipes after `after` by id, as they see them, for their data export (docs/api.md §11.2). */
export async function findRecipesOfAuthorAfter(
  db: Queryable,
  authorId: string,
  after: string | null,
  limit: number,
): Promise<RecipeSummary[]> {
  const { rows } = await db.query<Stored<RecipeSummary>>(
    `SELECT ${summaryColumns} FROM recipes r JOIN users u ON u.id = r.author_id
      WHERE r.author_id = $1 AND r.deleted_at IS NULL AND ($2::uuid IS NULL OR r.id > $2) ORDER BY r.id LIMIT $3`,
    [authorId, after, limit],
  );
  return rows.map(withIsoTimestamp);
}

/** The author's live posts after `after` by id, for their data export. */
export async function findPostsOfAuthorAfter(
  db: Queryable,
  authorId: string,
  after: string | null,
  limit: number,
): Promise<Post[]> {
  const { rows } = await db.query<Stored<Post>>(
    `SELECT p.id, p.title, p.cover_image_url AS "coverImageUrl", p.created_at AS "createdAt",
            json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url) AS author
       FROM posts p JOIN users u ON u.id = p.author_id
      WHERE p.author_id = $1 AND p.deleted_at IS NULL AND ($2::uuid IS NULL OR p.id > $2) ORDER BY p.id LIMIT $3`,
    [authorId, after, limit],
  );
  return rows.map(withIsoTimestamp);
}
