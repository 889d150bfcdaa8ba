import {
  AUTHOR_EXAMPLE,
  authorSchema,
  C0_BUT_LINE_BREAKS,
  commentTargetTypeSchema,
  listCursor,
  listPaginationSchema,
  listQuery,
  timestampSchema,
  trimmedTextPattern,
} from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;
/** A C0 control character (below U+0020) but tab, line feed and carriage return; NUL cannot even be stored. */
const isForbiddenControl = (character: string) => character < ' ' && !'\t\n\r'.includes(character);
/** Half of a surrogate pair without the other half: not a character (UTF-8 would store U+FFFD instead). */
const LONE_SURROGATE = /\p{Cs}/u;

/** docs/api.md §5: trimmed, then 1–2000 characters (code points), no control characters but \t \n \r. */
export const commentContent = z
  .string()
  .trim()
  .refine((value) => value.length > 0, 'must not be empty')
  .refine((value) => codePoints(value) <= 2000, 'must be at most 2000 characters')
  .refine((value) => ![...value].some(isForbiddenControl), 'must not contain control characters')
  .refine((value) => !LONE_SURROGATE.test(value), 'must be valid Unicode text')
  .meta({
    // A half of a surrogate pair alone is no character (with the `u` flag, a pair is one code point above them).
    pattern: trimmedTextPattern({ min: 1, max: 2000, forbidden: `${C0_BUT_LINE_BREAKS}\\ud800-\\udfff` }),
    description:
      'Trimmed, then 1-2000 characters of valid Unicode, with no control characters but tab, line feed and carriage return',
  });

export const commentBody = z.object({ content: commentContent });

/**
 * A new comment, or a reply (docs/api.md §11.4): `parentId` any string, since an id that is not a UUID
 * names no comment, which is a 404 found after validation, as for `targetParams`.
 */
export const newCommentBody = commentBody.extend({
  parentId: z.string().optional().meta({
    description:
      'The comment this one replies to, on the same target; a reply to a reply is stored under its top-level comment',
  }),
});

/**
 * Any string: an id that is not a UUID names nothing, which is a 404 like any other missing target,
 * found only after the body and query have been validated (docs/api.md §1 check order).
 */
export const targetParams = z.object({ id: z.string().meta({ description: 'The target’s id, a UUID' }) });

/** A comment on its target: both any string, for the same reason as `targetParams`. */
export const commentParams = targetParams.extend({
  commentId: z.string().meta({ description: 'The comment’s id, a UUID' }),
});

/** Where a walk through a target's comments stands (docs/api.md §10.1). */
export const commentCursor = listCursor('comments');
export const commentsPageQuery = listQuery(50, commentCursor).extend({
  // As `standalone` on saved items: `true` filters, any other value, or none, keeps all.
  topLevel: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => value === 'true')
    .meta({
      description: '`true` keeps only top-level comments (and `total` counts those); anything else keeps every comment',
    }),
});

/** Where a walk through a comment's replies stands. */
export const replyCursor = listCursor('replies');
export const repliesPageQuery = listQuery(20, replyCursor);

/** A comment named alone: any string, for the same reason as `targetParams`. */
export const commentIdParams = z.object({ id: z.string().meta({ description: 'The comment’s id, a UUID' }) });

export const commentSchema = z
  .object({
    id: z.uuid(),
    content: z.string(),
    createdAt: timestampSchema,
    /** Null until its author edits it. */
    editedAt: timestampSchema.nullable(),
    /** What it is on, so that a comment read alone (`GET /api/comments/{id}`) leads to its thread. */
    targetType: commentTargetTypeSchema,
    targetId: z.uuid(),
    /** The top-level comment it replies to; null for a top-level comment. */
    parentId: z.uuid().nullable(),
    /** Its replies; 0 for a reply. */
    replyCount: z.number().int().nonnegative(),
    author: authorSchema,
  })
  .meta({
    id: 'Comment',
    examples: [
      {
        id: '019375a3-1b2c-7d4e-8f90-a1b2c3d4e5f6',
        content: 'What a light, @ada!',
        createdAt: '2026-11-22T10:00:00.000Z',
        editedAt: null,
        targetType: 'recipe',
        targetId: '019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        parentId: null,
        replyCount: 2,
        author: AUTHOR_EXAMPLE,
      },
    ],
  });

export const commentListResponse = z.object({
  comments: z.array(commentSchema),
  total: z.number().int(),
  pagination: listPaginationSchema,
});

/** A comment's replies (docs/api.md §11.4): no `total` beside the pagination, unlike a target's list. */
export const replyListResponse = z.object({
  comments: z.array(commentSchema),
  pagination: listPaginationSchema,
});

export const commentAddedResponse = z.object({
  message: z.literal('Comment added successfully'),
  comment: commentSchema,
});

/** One comment: an edited one, or one read alone (`GET /api/comments/{id}`). */
export const commentResponse = z.object({ comment: commentSchema });

export const commentDeletedResponse = z.object({ message: z.literal('Comment deleted') });
