import type { CommentTargetType } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import {
  deleteRowsOf,
  type ErasureStep,
  forgetCountsIn,
  idsOf,
  retireItemsOf,
  type SharedStoreSlot,
} from '@recipes/runtime';
import { mentionStores, setCorrelationId } from './repository.js';
import { deleteInThread } from './thread-deletion.js';
import { lockInThread } from './thread-repository.js';

/**
 * Deletes a batch of the user's live comments as they would delete each themselves (`deleteInThread`):
 * a top-level one with its replies, whoever wrote them, a reply off its thread's count; each leaves its
 * lists and counts (`comment.deleted`) and its mentions are retracted. Works whatever became of the
 * comments' targets. A comment gone with a thread earlier in the batch is passed over.
 */
const removeCommentsBy: (pool: Pool) => ErasureStep = (pool) => async (authorId, limit, correlationId) =>
  withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ id: string; type: CommentTargetType; targetId: string }>(
      `SELECT id, target_type AS type, target_id AS "targetId" FROM comments WHERE author_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT $2`,
      [authorId, limit],
    );
    await setCorrelationId(tx, correlationId);
    for (const { id, type, targetId } of rows) {
      const target = { type, id: targetId };
      const comment = await lockInThread(tx, target, id);
      if (comment) await deleteInThread(tx, target, comment, correlationId);
    }
    return rows.length;
  });

/** Deletes a batch of the user's deleted comments for good, with what still names them. */
const purgeCommentsBy: (pool: Pool) => ErasureStep = (pool) => async (authorId, limit) =>
  withTransaction(pool, async (tx) => {
    const ids = await idsOf(
      tx,
      'SELECT id FROM comments WHERE author_id = $1 AND deleted_at IS NOT NULL LIMIT $2 FOR UPDATE',
      authorId,
      limit,
    );
    await tx.query('DELETE FROM ever_mentioned WHERE comment_id = ANY($1::uuid[])', [ids]);
    // Others' comments that answered theirs keep nothing of them: a reply to one of theirs names it as
    // answered, and the deleted replies of their deleted threads name it as the top-level comment.
    await tx.query('UPDATE comments SET replied_to_id = NULL WHERE replied_to_id = ANY($1::uuid[])', [ids]);
    await tx.query(
      'UPDATE comments SET parent_id = NULL WHERE parent_id = ANY($1::uuid[]) AND deleted_at IS NOT NULL',
      [ids],
    );
    await tx.query('DELETE FROM comments WHERE id = ANY($1::uuid[])', [ids]);
    return ids.length;
  });

/** The limits this service counts per caller (src/service.ts), by the caller's id. */
export const LIMITS_PER_CALLER = ['comments'] as const;

/**
 * What comments erases of a deleted user (docs/api.md §11.2), as if they had deleted each comment
 * themselves; then the deleted comments for good, the mentions of them in others' comments (their stores'
 * triggers retract those notifications), what the directories knew of them, and their counts in the shared store.
 */
export function erasureSteps(pool: Pool, shared: SharedStoreSlot): ErasureStep[] {
  return [
    removeCommentsBy(pool),
    purgeCommentsBy(pool),
    ...Object.values(mentionStores).map((store) => deleteRowsOf(pool, store, 'mentioned_user_id')),
    deleteRowsOf(pool, 'ever_mentioned', 'user_id'),
    deleteRowsOf(pool, 'budgets', 'key'),
    retireItemsOf(pool, 'content_items'),
    retireItemsOf(pool, 'known_collections'),
    deleteRowsOf(pool, 'user_relations', 'user_id'),
    deleteRowsOf(pool, 'user_relations', 'target_id'),
    deleteRowsOf(pool, 'users', 'id'),
    forgetCountsIn(shared, LIMITS_PER_CALLER),
  ];
}
