import type { MentionKind } from '@recipes/contracts';
import { query, type Queryable, sql } from '@recipes/db';
import {
  columns,
  type CommentRecord,
  type CommentTarget,
  DELETED,
  markDeleted,
  mentionStores,
  onTargetByKey,
} from './repository.js';

/*
 * Threads (docs/api.md §11.4): a top-level comment and its replies, one level deep. The SQL that keeps a
 * thread whole as its comments are deleted; a reply is stored by src/posting.ts.
 */

/**
 * The live comment `id` on `target` and, for a reply, its top-level comment, both locked until the
 * transaction ends, the top-level one first, as a new reply locks them (src/posting.ts): so a reply's
 * deletion and its thread's never wait for each other in turn (`onTargetByKey`). Undefined when the comment is
 * not there.
 */
export async function lockInThread(
  db: Queryable,
  target: CommentTarget,
  id: string,
): Promise<CommentRecord | undefined> {
  const { text, values } = query(sql`
    WITH thread AS MATERIALIZED (
      SELECT * FROM comments
       WHERE id = ANY (ARRAY(SELECT parent_id FROM comments WHERE id = ${id}::uuid AND parent_id IS NOT NULL
                             UNION ALL SELECT ${id}::uuid))
         AND ${onTargetByKey(target)}
       ORDER BY parent_id NULLS FIRST FOR UPDATE
    )
    SELECT ${sql([columns])} FROM thread WHERE deleted_at IS NULL`);
  const { rows } = await db.query<CommentRecord>(text, values);
  return rows.find((row) => row.id === id);
}

/**
 * Deletes the comment and, for a top-level one, its live replies (giving them, to be announced), or
 * takes a reply off its top-level comment's count: run under `lockInThread`'s locks.
 */
export async function markDeletedInThread(
  db: Queryable,
  comment: CommentRecord,
): Promise<{ deletedAt: string; replies: DeletedReply[] }> {
  const deletedAt = await markDeleted(db, comment.id);
  if (comment.parentId !== null) {
    await db.query('UPDATE comments SET reply_count = reply_count - 1 WHERE id = $1', [comment.parentId]);
    return { deletedAt, replies: [] };
  }
  const { rows } = await db.query<DeletedReply>(
    `UPDATE comments SET ${DELETED} WHERE parent_id = $1 AND deleted_at IS NULL
     RETURNING id, author_id AS "authorId", iso_timestamp(created_at) AS "createdAt", iso_timestamp(deleted_at) AS "deletedAt"`,
    [comment.id],
  );
  if (rows.length > 0) await db.query('UPDATE comments SET reply_count = 0 WHERE id = $1', [comment.id]);
  return { deletedAt, replies: rows };
}

/** A reply deleted with its thread. */
export interface DeletedReply {
  id: string;
  authorId: string;
  createdAt: string;
  deletedAt: string;
}

/** Takes every mention of the comments `commentIds` out of the kind's store; its trigger retracts each. */
export async function deleteAllMentions(db: Queryable, kind: MentionKind, commentIds: string[]): Promise<void> {
  if (commentIds.length === 0) return;
  await db.query(`DELETE FROM ${mentionStores[kind]} WHERE comment_id = ANY($1::uuid[])`, [commentIds]);
}
