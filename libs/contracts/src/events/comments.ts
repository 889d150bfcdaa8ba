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
  data: commentSchema,
  producer: 'comments',
  consumers: ['content'],
  description: 'A comment was added to a recipe, collection or post (for comment counts).',
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
  description: 'A user was @mentioned in a comment; written by a trigger on the mention store.',
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
  consumers: ['content'],
  description: 'A comment was deleted by its author or the owner of its target (for comment counts).',
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
