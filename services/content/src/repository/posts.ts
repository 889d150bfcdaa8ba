import type { ContentSnapshot } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';
import { type AuthorRow, type Stored, withIsoTimestamp } from './rows.js';

/** A post that is not deleted, with its author. */
export interface Post {
  id: string;
  title: string;
  coverImageUrl: string | null;
  author: AuthorRow;
  createdAt: string;
}

export interface NewPost {
  id: string;
  authorId: string;
  title: string;
  coverImageUrl: string | null;
}

export async function insertPost(db: Queryable, post: NewPost): Promise<void> {
  await db.query('INSERT INTO posts (id, author_id, title, cover_image_url) VALUES ($1, $2, $3, $4)', [
    post.id,
    post.authorId,
    post.title,
    post.coverImageUrl,
  ]);
}

export async function insertPostTags(db: Queryable, postId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query('INSERT INTO post_tags (post_id, user_id) SELECT $1, unnest($2::uuid[])', [postId, userIds]);
}

const postColumns = `p.id, p.title, p.cover_image_url AS "coverImageUrl", p.created_at AS "createdAt",
            json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url) AS author`;

/** A post that is not deleted. */
export async function findPost(db: Queryable, id: string): Promise<Post | undefined> {
  const { rows } = await db.query<Stored<Post>>(
    `SELECT ${postColumns}
       FROM posts p JOIN users u ON u.id = p.author_id
      WHERE p.id = $1 AND p.deleted_at IS NULL`,
    [id],
  );
  return rows[0] && withIsoTimestamp(rows[0]);
}

/** The posts of `ids` that are not deleted, in the order of `ids`: one statement, each by its primary key. */
export async function findPosts(db: Queryable, ids: string[]): Promise<Post[]> {
  const { rows } = await db.query<Stored<Post>>(
    `SELECT ${postColumns}
       FROM unnest($1::uuid[]) WITH ORDINALITY AS asked(id, position)
       JOIN posts p ON p.id = asked.id JOIN users u ON u.id = p.author_id
      WHERE p.deleted_at IS NULL ORDER BY asked.position`,
    [ids],
  );
  return rows.map(withIsoTimestamp);
}

/** What other services keep of a post, deleted or not. */
export async function findPostSnapshot(db: Queryable, id: string): Promise<ContentSnapshot | undefined> {
  const { rows } = await db.query<Stored<ContentSnapshot>>(
    `SELECT id, author_id AS "authorId", title, cover_image_url AS "coverImageUrl",
            deleted_at IS NOT NULL AS deleted, revision, created_at AS "createdAt"
       FROM posts WHERE id = $1`,
    [id],
  );
  return rows[0] && withIsoTimestamp(rows[0]);
}

/** The author of a post that is not deleted, its row locked until the transaction ends. */
export async function lockLivePost(db: Queryable, id: string): Promise<{ authorId: string } | undefined> {
  const { rows } = await db.query<{ authorId: string }>(
    'SELECT author_id AS "authorId" FROM posts WHERE id = $1 AND deleted_at IS NULL FOR UPDATE',
    [id],
  );
  return rows[0];
}

/** Soft: the row stays for the events, with no text (migrations/005): no title, no cover. */
export async function markPostDeleted(db: Queryable, id: string): Promise<void> {
  await db.query(
    "UPDATE posts SET deleted_at = now(), revision = revision + 1, title = '', cover_image_url = NULL WHERE id = $1",
    [id],
  );
}
