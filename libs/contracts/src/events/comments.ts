import { z } from 'zod';
import { defineEvent } from './envelope.js';

export const commentTargetTypeSchema = z.enum(['recipe', 'collection', 'post']);
export type CommentTargetType = z.infer<typeof commentTargetTypeSchema>;

const commentSchema = z.object({
  id: z.uuid(),
  targetType: commentTargetTypeSchema,
  targetId: z.uuid(),
  authorId: z.uuid(),
  createdAt: z.iso.datetime(),
});

export const commentCreated = defineEvent({
  type: 'comment.created',
  version: 1,
  // Fields added since the first release are optional: events written before them may still be queued.
  data: commentSchema.extend({
    /** The top-level comment a reply is stored under (docs/api.md §11.4); null for a top-level comment. */
    parentId: z.uuid().nullable().optional(),
    /** The owner of the recipe, post or collection commented on. */
    targetOwnerId: z.uuid().optional(),
    /** For a reply, the author of the comment replied to (before the reply was moved to the top level); else null. */
    repliedToAuthorId: z.uuid().nullable().optional(),
    /**
     * The users the comment mentions (each told by its own comment.mention.created, which comes before a reply or a
     * comment on their content).
     */
    mentionedUserIds: z.array(z.uuid()).optional(),
  }),
  producer: 'comments',
  consumers: ['content', 'notifications'],
  description:
    'A comment or a reply was added to a recipe, collection or post (for comment counts, and to tell the owner and the author replied to).',
});

/** The three mention stores, one per kind of comment (docs/api.md §5). */
export const mentionKindSchema = z.enum(['recipe_comment', 'collection_comment', 'post_comment']);
export type MentionKind = z.infer<typeof mentionKindSchema>;

export const commentMentionCreated = defineEvent({
  type: 'comment.mention.created',
  version: 1,
  data: z.object({
    kind: mentionKindSchema,
    mentionId: z.uuid(),
    mentionedUserId: z.uuid(),
    /** The comment's author. */
    actorId: z.uuid(),
    commentId: z.uuid(),
    targetType: commentTargetTypeSchema,
    targetId: z.uuid(),
    createdAt: z.iso.datetime(),
  }),
  producer: 'comments',
  consumers: ['notifications'],
  description: 'A user was @mentioned in a comment; written with the mention, in the statement that stores it.',
});

export const commentUpdated = defineEvent({
  type: 'comment.updated',
  version: 1,
  data: commentSchema.extend({ editedAt: z.iso.datetime() }),
  producer: 'comments',
  consumers: [],
  description: 'A comment’s text was edited by its author; its mentions changed with it through the mention events.',
});

export const commentDeleted = defineEvent({
  type: 'comment.deleted',
  version: 1,
  data: commentSchema.extend({ deletedAt: z.iso.datetime() }),
  producer: 'comments',
  consumers: ['content', 'notifications'],
  description:
    'A comment was deleted by its author or the owner of its target, or with its thread or its target (for comment counts, and to retract what it notified).',
});

export const commentMentionDeleted = defineEvent({
  type: 'comment.mention.deleted',
  version: 1,
  data: commentMentionCreated.data.extend({ deletedAt: z.iso.datetime() }),
  producer: 'comments',
  consumers: ['notifications'],
  description:
    'A user is no longer @mentioned in a comment (an edit took the mention out, or the comment was deleted); written by a trigger on the mention store.',
});
