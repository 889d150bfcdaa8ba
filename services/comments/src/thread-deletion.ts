import { commentDeleted, createEvent } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';
import { enqueue } from '@recipes/outbox';
import { type CommentRecord, type CommentTarget, mentionKindOf } from './repository.js';
import { deleteAllMentions, markDeletedInThread } from './thread-repository.js';

/**
 * Deletes a comment as its author or the target's owner does (docs/api.md §5, §11.4): a top-level one with
 * its replies, a reply off its top-level comment's count. Their mention rows go, so the stores' triggers
 * retract what they caused, and each comment's `comment.deleted` is written. Run under `lockInThread`'s
 * locks, in a transaction whose correlation id is set.
 */
export async function deleteInThread(
  db: Queryable,
  target: CommentTarget,
  comment: CommentRecord,
  correlationId: string,
): Promise<void> {
  const { deletedAt, replies } = await markDeletedInThread(db, comment);
  await deleteAllMentions(db, mentionKindOf[target.type], [comment.id, ...replies.map((reply) => reply.id)]);
  for (const gone of [{ ...comment, deletedAt }, ...replies]) {
    const data = {
      id: gone.id,
      targetType: target.type,
      targetId: target.id,
      authorId: gone.authorId,
      createdAt: gone.createdAt,
      deletedAt: gone.deletedAt,
    };
    await enqueue(db, createEvent(commentDeleted, data, { producer: 'comments', correlationId }));
  }
}
