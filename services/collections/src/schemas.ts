import {
  AUTHOR_EXAMPLE,
  authorSchema,
  C0_BUT_LINE_BREAKS,
  collectionSnapshotSchema,
  contentTypeSchema,
  listCursor,
  listPaginationSchema,
  listQuery,
  timestampSchema,
  trimmedTextPattern,
} from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;

/** Trimmed, counted in characters (code points); C0 control characters, NUL above all, are refused. */
const text = (min: 0 | 1, max: number, allowed: RegExp, forbidden: string, description: string) =>
  z
    .string()
    .trim()
    .refine((value) => codePoints(value) >= min && codePoints(value) <= max, `must be ${min}-${max} characters`)
    .refine((value) => allowed.test(value), 'must not contain control characters')
    .meta({
      pattern: trimmedTextPattern({ min, max, forbidden }),
      description: `Trimmed, then ${min}-${max} characters, ${description}`,
    });
// eslint-disable-next-line no-control-regex -- the control characters are what these refuse
const singleLine = /^[^\u0000-\u001f\u007f]*$/u;
// eslint-disable-next-line no-control-regex
const multiLine = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/u;

export const saveBody = z.object({ contentType: contentTypeSchema, contentId: z.uuid() });

export const collectionBody = z.object({
  name: text(1, 100, singleLine, '\\u0000-\\u001f\\u007f', 'with no control characters'),
  description: text(
    0,
    500,
    multiLine,
    `${C0_BUT_LINE_BREAKS}\\u007f`,
    'with no control characters but tab, line feed and carriage return',
  )
    .optional()
    .default(''),
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

export const savedItemSchema = z
  .object({
    id: z.uuid(),
    userId: z.uuid(),
    contentType: contentTypeSchema,
    contentId: z.uuid(),
    createdAt: timestampSchema,
    content: z.object({ title: z.string(), coverImageUrl: z.string().nullable(), author: authorSchema }),
  })
  .meta({
    id: 'SavedItem',
    examples: [
      {
        id: '019375a4-0c1d-7e2f-8a3b-4c5d6e7f8a9b',
        userId: '019375a2-7c1e-7d3a-9b8f-2c4d6e8f0a1b',
        contentType: 'recipe',
        contentId: '019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        createdAt: '2026-11-22T10:00:00.000Z',
        content: {
          title: 'Velvia at dusk',
          coverImageUrl: 'https://images.example.com/velvia.jpg',
          author: AUTHOR_EXAMPLE,
        },
      },
    ],
  });
export type SavedItem = z.infer<typeof savedItemSchema>;

export const collectionSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    owner: authorSchema,
    itemCount: z.number().int(),
    createdAt: timestampSchema,
  })
  .meta({
    id: 'Collection',
    examples: [
      {
        id: '019375a4-1d2e-7f3a-8b4c-5d6e7f8a9b0c',
        name: 'Evening light',
        description: 'Recipes for the golden hour',
        owner: AUTHOR_EXAMPLE,
        itemCount: 4,
        createdAt: '2026-11-22T10:00:00.000Z',
      },
    ],
  });
export type Collection = z.infer<typeof collectionSchema>;

export const savedItemResponse = z.object({ savedItem: savedItemSchema });
export const savedItemsResponse = z.object({ savedItems: z.array(savedItemSchema), pagination: listPaginationSchema });
export const collectionResponse = z.object({ collection: collectionSchema });
export const collectionsResponse = z.object({
  collections: z.array(collectionSchema),
  pagination: listPaginationSchema,
});
export const messageResponse = z.object({ message: z.string() });

export const internalCollectionResponse = z.object({ collection: collectionSnapshotSchema });
