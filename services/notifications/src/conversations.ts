import { createHash } from 'node:crypto';
import type { commentCreated, CommentTargetType, EventData, EventEnvelope } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { announceRetracted } from './notifications.js';
import { type CommentRef, retractAboutComment } from './repository/retractions.js';
import type { NewNotification } from './repository/rows.js';

/**
 * Conversations (docs/api.md §11.4): a new comment tells the author it replies to (`reply_comment`) and
 * the owner of what it is on (`comment_recipe`, `comment_post`, `comment_collection`). One comment gives
 * a user one notification at most, a mention before a reply before a comment on their content: the users
 * it mentions are told by their mentions (`fromMention`), so they are left out here, as is its author.
 * Mutes, blocks, preferences and deletions are the rules of src/rules, as for every notification.
 */
export function fromComment(comment: EventData<typeof commentCreated>): NewNotification[] {
  const told = new Set([comment.authorId, ...(comment.mentionedUserIds ?? [])]);
  const about = {
    actorId: comment.authorId,
    contentType: comment.targetType,
    contentId: comment.targetId,
    commentId: comment.id,
    createdAt: comment.createdAt,
  };
  const reasons: [recipientId: string | null | undefined, type: NewNotification['type']][] = [
    [comment.repliedToAuthorId, 'reply_comment'],
    [comment.targetOwnerId, commentOnContent[comment.targetType]],
  ];
  const notifications: NewNotification[] = [];
  for (const [recipientId, type] of reasons) {
    if (!recipientId || told.has(recipientId)) continue;
    told.add(recipientId);
    notifications.push({ recipientId, type, ...about });
  }
  return notifications;
}

const commentOnContent: Record<CommentTargetType, NewNotification['type']> = {
  recipe: 'comment_recipe',
  post: 'comment_post',
  collection: 'comment_collection',
};

/**
 * The source event of one of the notifications `event` causes: the event under an id of its own per
 * recipient, the same at every delivery, so that each notification is stored once (its inbox row) and a
 * redelivery after a failure between two of them stores only what is missing.
 */
export function sourceFor(event: EventEnvelope, recipientId: string): EventEnvelope {
  const hash = createHash('sha256').update(`${event.id}:${recipientId}`).digest('hex');
  // A version 8 UUID (RFC 9562, custom): 122 bits of the hash, with the version and variant bits set.
  const variant = ((parseInt(hash[16]!, 16) & 0x3) | 0x8).toString(16);
  const id = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-8${hash.slice(13, 16)}-${variant}${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
  return { ...event, id };
}

/** Comments deleted, as the notifications service follows them. */
export function deletedComments(pool: Pool) {
  return {
    /**
     * The comment was deleted: every notification it caused (its mentions, the reply, the comment on the
     * owner's content) is retracted and announced, and none is stored from it from now on; once however
     * often `event` is delivered, and whichever comes first, the deletion or what it retracts.
     */
    async retractFrom(event: EventEnvelope, comment: CommentRef, retractedAt: string): Promise<void> {
      await handleOnce(pool, event, async (tx) => {
        const retracted = await retractAboutComment(tx, comment, retractedAt);
        for (const [recipientId, done] of retracted)
          await announceRetracted(tx, recipientId, done, event.correlationId);
      });
    },
  };
}

export type DeletedComments = ReturnType<typeof deletedComments>;
