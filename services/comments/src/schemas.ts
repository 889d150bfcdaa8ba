import { AUTHOR_EXAMPLE, authorSchema, C0_BUT_LINE_BREAKS, listCursor, listPaginationSchema, listQuery, timestampSchema, trimmedTextPattern } from '@recipes/contracts';
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
    description: 'Trimmed, then 1-2000 characters of valid Unicode, with no control characters but tab, line feed and carriage return',
  });

export const commentBody = z.object({ content: commentContent });

/**
 * Any string: an id that is not a UUID names nothing, which is a 404 like any other missing target,
 * found only after the body and query have been validated (docs/api.md §1 check order).
 */
export const targetParams = z.object({ id: z.string().meta({ description: 'The target’s id, a UUID' }) });

/** A comment on its target: both any string, for the same reason as `targetParams`. */
export const commentParams = targetParams.extend({ commentId: z.string().meta({ description: 'The comment’s id, a UUID' }) });

/** Where a walk through a target's comments stands (docs/api.md §10.1). */
export const commentCursor = listCursor('comments');
export const commentsPageQuery = listQuery(50, commentCursor);

export const commentSchema = z.object({
  id: z.uuid(),
  content: z.string(),
  createdAt: timestampSchema,
  /** Null until its author edits it. */
  editedAt: timestampSchema.nullable(),
  author: authorSchema,
}).meta({
  id: 'Comment',
  examples: [{ id: '019375a3-1b2c-7d4e-8f90-a1b2c3d4e5f6', content: 'What a light, @ada!', createdAt: '2026-11-22T10:00:00.000Z', editedAt: null, author: AUTHOR_EXAMPLE }],
});

export const commentListResponse = z.object({
  comments: z.array(commentSchema),
  total: z.number().int(),
  pagination: listPaginationSchema,
});

export const commentAddedResponse = z.object({ message: z.literal('Comment added successfully'), comment: commentSchema });

export const commentEditedResponse = z.object({ comment: commentSchema });

export const commentDeletedResponse = z.object({ message: z.literal('Comment deleted') });
