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

/** The three mention stores of the reference system, one per kind of comment. */
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
