import { commentDeleted, createEvent } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import { enqueue } from '@recipes/outbox';
import { type CommentTarget, DELETED, mentionKindOf, mentionStores, setCorrelationId } from './repository.js';

/**
 * A recipe, post or collection this service has learnt is deleted: each of its comments still live is
 * deleted as its author or the target's owner would delete it (docs/api.md §5), so that nothing visible
 * points at deleted content, whichever came first, the deletion or a comment posted as it happened. The
 * mention rows go, so their store's trigger retracts their notifications (`comment.mention.deleted`),
 * and each comment's `comment.deleted` is written. Changes nothing the second time.
 */
export async function removeCommentsOn(pool: Pool, target: CommentTarget, correlationId: string): Promise<number> {
  return withTransaction(pool, async (tx) => {
    await setCorrelationId(tx, correlationId);
    const { rows } = await tx.query<{ id: string; authorId: string; createdAt: string; deletedAt: string }>(
      // Top-level comments locked before replies, as a reply's deletion locks them (src/thread-repository.ts).
      `UPDATE comments SET ${DELETED}
        WHERE id IN (SELECT id FROM comments WHERE target_type = $1 AND target_id = $2 AND deleted_at IS NULL ORDER BY parent_id NULLS FIRST FOR UPDATE)
       RETURNING id, author_id AS "authorId", iso_timestamp(created_at) AS "createdAt", iso_timestamp(deleted_at) AS "deletedAt"`,
      [target.type, target.id],
    );
    await tx.query(`DELETE FROM ${mentionStores[mentionKindOf[target.type]]} WHERE comment_id = ANY($1::uuid[])`, [
      rows.map((row) => row.id),
    ]);
    for (const { id, authorId, createdAt, deletedAt } of rows) {
      const data = { id, targetType: target.type, targetId: target.id, authorId, createdAt, deletedAt };
      await enqueue(tx, createEvent(commentDeleted, data, { producer: 'comments', correlationId }));
    }
    return rows.length;
  });
}

/** The targets this service learns are deleted: see `removeCommentsOn`. */
export function deletedTargets(pool: Pool) {
  return {
    removeCommentsOn: (target: CommentTarget, correlationId: string) => removeCommentsOn(pool, target, correlationId),
  };
}

export type DeletedTargets = ReturnType<typeof deletedTargets>;
