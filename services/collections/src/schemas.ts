import { authorSchema, collectionSnapshotSchema, contentTypeSchema, listCursor, listPaginationSchema, listQuery, timestampSchema } from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;

/** Trimmed, counted in characters (code points); C0 control characters, NUL above all, are refused. */
const text = (min: number, max: number, allowed: RegExp) =>
  z
    .string()
    .trim()
    .refine((value) => codePoints(value) >= min && codePoints(value) <= max, `must be ${min}-${max} characters`)
    .refine((value) => allowed.test(value), 'must not contain control characters');
// eslint-disable-next-line no-control-regex -- the control characters are what these refuse
const singleLine = /^[^\u0000-\u001f\u007f]*$/u;
// eslint-disable-next-line no-control-regex
const multiLine = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/u;

export const idParams = z.object({ id: z.uuid() });

export const saveBody = z.object({ contentType: contentTypeSchema, contentId: z.uuid() });

export const collectionBody = z.object({
  name: text(1, 100, singleLine),
  description: text(0, 500, multiLine).optional().default(''),
});

export const collectionItemBody = z.object({ savedItemId: z.uuid() });

/** Where a walk through each kind of list stands (docs/api.md §10.1); a cursor of one is refused by another. */
export const savedItemCursor = listCursor('saved-items');
export const collectionItemCursor = listCursor('collection-items');
export const collectionCursor = listCursor('collections');
export const collectionItemsQuery = listQuery(12, collectionItemCursor);
export const collectionsQuery = listQuery(12, collectionCursor);

export const savedItemsQuery = listQuery(12, savedItemCursor).extend({
  // Only `true` filters; any other value, repeated or not, keeps every item (docs/api.md §6).
  standalone: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => value === 'true'),
  content_type: contentTypeSchema.optional(),
});

export const savedItemSchema = z.object({
  id: z.uuid(),
  userId: z.uuid(),
  contentType: contentTypeSchema,
  contentId: z.uuid(),
  createdAt: timestampSchema,
  content: z.object({ title: z.string(), coverImageUrl: z.string().nullable(), author: authorSchema }),
});
export type SavedItem = z.infer<typeof savedItemSchema>;

export const collectionSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  owner: authorSchema,
  itemCount: z.number().int(),
  createdAt: timestampSchema,
});
export type Collection = z.infer<typeof collectionSchema>;

export const savedItemResponse = z.object({ savedItem: savedItemSchema });
export const savedItemsResponse = z.object({ savedItems: z.array(savedItemSchema), pagination: listPaginationSchema });
export const collectionResponse = z.object({ collection: collectionSchema });
export const collectionsResponse = z.object({ collections: z.array(collectionSchema), pagination: listPaginationSchema });
export const messageResponse = z.object({ message: z.string() });

export const internalCollectionResponse = z.object({ collection: collectionSnapshotSchema });
