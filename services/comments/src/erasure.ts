import { commentDeleted, type CommentTargetType, createEvent } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import { enqueue } from '@recipes/outbox';
import { deleteRowsOf, type ErasureStep, idsOf, retireItemsOf } from '@recipes/runtime';
import { mentionStores } from './deleted-targets.js';
import { setCorrelationId } from './repository.js';

/**
 * Deletes a batch of the user's live comments as `remove` and `removeCommentsOn` (src/deleted-targets.ts)
 * do: each leaves its lists and counts (`comment.deleted`), and its mention rows go, so their stores'
 * triggers retract the notifications they caused. Works whatever became of the comments' targets.
 */
const removeCommentsBy: (pool: Pool) => ErasureStep = (pool) => async (authorId, limit, correlationId) =>
  withTransaction(pool, async (tx) => {
    await setCorrelationId(tx, correlationId);
    const { rows } = await tx.query<{ id: string; targetType: CommentTargetType; targetId: string; createdAt: string; deletedAt: string }>(
      `UPDATE comments SET deleted_at = date_trunc('milliseconds', now())
        WHERE id = ANY(ARRAY(SELECT id FROM comments WHERE author_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT $2 FOR UPDATE))
       RETURNING id, target_type AS "targetType", target_id AS "targetId", iso_timestamp(created_at) AS "createdAt", iso_timestamp(deleted_at) AS "deletedAt"`,
      [authorId, limit],
    );
    const ids = rows.map((row) => row.id);
    for (const store of Object.values(mentionStores)) await tx.query(`DELETE FROM ${store} WHERE comment_id = ANY($1::uuid[])`, [ids]);
    for (const { id, targetType, targetId, createdAt, deletedAt } of rows) {
      const data = { id, targetType, targetId, authorId, createdAt, deletedAt };
      await enqueue(tx, createEvent(commentDeleted, data, { producer: 'comments', correlationId }));
    }
    return rows.length;
  });

/** Deletes a batch of the user's deleted comments for good, with what still names them. */
const purgeCommentsBy: (pool: Pool) => ErasureStep = (pool) => async (authorId, limit) =>
  withTransaction(pool, async (tx) => {
    const ids = await idsOf(tx, 'SELECT id FROM comments WHERE author_id = $1 AND deleted_at IS NOT NULL LIMIT $2 FOR UPDATE', authorId, limit);
    await tx.query('DELETE FROM ever_mentioned WHERE comment_id = ANY($1::uuid[])', [ids]);
    await tx.query('DELETE FROM comments WHERE id = ANY($1::uuid[])', [ids]);
    return ids.length;
  });

/**
 * What comments erases of a deleted user (docs/api.md §11.2), as if they had deleted each comment
 * themselves; then the deleted comments for good, the mentions of them in others' comments (their stores'
 * triggers retract those notifications), and what the directories knew of them.
 */
export function erasureSteps(pool: Pool): ErasureStep[] {
  return [
    removeCommentsBy(pool),
    purgeCommentsBy(pool),
    ...Object.values(mentionStores).map((store) => deleteRowsOf(pool, store, 'mentioned_user_id')),
    deleteRowsOf(pool, 'ever_mentioned', 'user_id'),
    deleteRowsOf(pool, 'budgets', 'key'),
    retireItemsOf(pool, 'content_items', 'author_id'),
    retireItemsOf(pool, 'known_collections', 'owner_id'),
    deleteRowsOf(pool, 'user_relations', 'user_id'),
    deleteRowsOf(pool, 'user_relations', 'target_id'),
    deleteRowsOf(pool, 'users', 'id'),
  ];
}
