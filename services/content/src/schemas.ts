import {
  AUTHOR_EXAMPLE,
  authorSchema,
  C0_BUT_LINE_BREAKS,
  CONTROL_CHARACTERS,
  contentSnapshotSchema,
  httpUrlSchema,
  isUuid,
  listCursor,
  listPaginationSchema,
  listQuery,
  timestampSchema,
  trimmedTextPattern,
} from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;
const isControl = (character: string) => /\p{Cc}/u.test(character);

/**
 * Text as a person types it: trimmed, then `min`–`max` characters (code points), with no control
 * characters but the `allowed` ones (NUL, for one, cannot even be stored).
 */
function text({ min, max, allowed = '' }: { min: 0 | 1; max: number; allowed?: string }) {
  return z
    .string()
    .trim()
    .refine(
      (value) => ![...value].some((character) => isControl(character) && !allowed.includes(character)),
      'must not contain control characters',
    )
    .refine((value) => codePoints(value) >= min && codePoints(value) <= max, `must be ${min}-${max} characters`)
    .meta({
      pattern: trimmedTextPattern({ min, max, forbidden: controlsBut(allowed) }),
      description: `Trimmed, then ${min}-${max} characters, with no control characters${allowed === '' ? '' : ' but tab, line feed and carriage return'}`,
    });
}

/** The control characters (`\p{Cc}`) but `allowed`, as a character class body for `trimmedTextPattern`. */
function controlsBut(allowed: string): string {
  if (allowed === '') return CONTROL_CHARACTERS;
  if (allowed === '\t\n\r') return `${C0_BUT_LINE_BREAKS}\\u007f-\\u009f`;
  throw new Error(`no pattern for control characters allowed: ${JSON.stringify(allowed)}`);
}

const title = text({ min: 1, max: 200 });
const coverImageUrl = httpUrlSchema.nullable().default(null);
/** Names that are not usernames, or of nobody, are ignored rather than refused (docs/api.md §4). */
const taggedUsernames = z.array(z.string()).max(20).default([]);

export const recipeDraftBody = z.object({
  title,
  description: text({ min: 0, max: 5000, allowed: '\t\n\r' }).default(''),
  cameraModel: text({ min: 1, max: 100 }),
  filmSimulation: text({ min: 1, max: 100 }),
  coverImageUrl,
  imageUrls: z.array(httpUrlSchema).max(20).default([]),
  taggedUsernames,
});

export const postDraftBody = z.object({ title, coverImageUrl, taggedUsernames });

export const recipeSummarySchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    description: z.string(),
    coverImageUrl: z.string().nullable(),
    cameraModel: z.string(),
    filmSimulation: z.string(),
    favoriteCount: z.number().int(),
    commentCount: z.number().int(),
    repostCount: z.number().int(),
    isFavorited: z.boolean(),
    isReposted: z.boolean(),
    createdAt: timestampSchema,
    author: authorSchema,
  })
  .meta({
    id: 'RecipeSummary',
    examples: [
      {
        id: '019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        title: 'Velvia at dusk',
        description: 'Warm, saturated evenings',
        coverImageUrl: 'https://images.example.com/velvia.jpg',
        cameraModel: 'X-T5',
        filmSimulation: 'Velvia',
        favoriteCount: 12,
        commentCount: 3,
        repostCount: 1,
        isFavorited: false,
        isReposted: false,
        createdAt: '2026-11-22T10:00:00.000Z',
        author: AUTHOR_EXAMPLE,
      },
    ],
  });

export const postSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    coverImageUrl: z.string().nullable(),
    author: authorSchema,
    createdAt: timestampSchema,
  })
  .meta({
    id: 'Post',
    examples: [
      {
        id: '019375a2-aa01-7b02-8c03-d4e5f6a7b8c9',
        title: 'A walk by the harbour',
        coverImageUrl: null,
        author: AUTHOR_EXAMPLE,
        createdAt: '2026-11-22T10:00:00.000Z',
      },
    ],
  });

/** The most ids one read by ids names (docs/api.md §4). */
const MAX_IDS = 50;
/** A UUID as `z.uuid()` takes it, for the pattern of a list of them. */
const UUID = z.regexes.uuid().source.replace(/^\^|\$$/g, '');

/**
 * `ids=a,b,…` (docs/api.md §4): 1–50 UUIDs, comma-separated or the parameter repeated, as `types` on
 * notifications; an empty or malformed one, or more than 50, is 400 naming `ids`. The same id twice (in any case)
 * is asked once, where it first appears.
 */
const idsParam = z
  // The pattern says for a client reading the document what the checks below take: UUIDs, none empty.
  .union([idList(), z.array(idList())])
  .transform((value) => [value].flat().flatMap((list) => list.split(',')))
  .refine((ids) => ids.length <= MAX_IDS, `must be at most ${MAX_IDS} ids`)
  .refine((ids) => ids.every(isUuid), 'must be UUIDs, comma-separated')
  .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))])
  .meta({
    description: `Up to ${MAX_IDS} ids (UUIDs), comma-separated; answered in this order, each once`,
    example: '019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c,019375a2-aa01-7b02-8c03-d4e5f6a7b8c9',
  });

/** One value of `ids`: 1-50 UUIDs, comma-separated (checked once the values are joined, in `idsParam`). */
function idList() {
  return z.string().meta({ pattern: `^${UUID}(?:,${UUID}){0,${MAX_IDS - 1}}$` });
}

/** A read of recipes or posts by id (`GET /api/recipes?ids=…`, `GET /api/posts?ids=…`). */
export const idsQuery = z.object({ ids: idsParam });

export const recipeResponse = z.object({ recipe: recipeSummarySchema });
/** Recipes read by id: those that can be read, in the order asked. */
export const recipesResponse = z.object({ recipes: z.array(recipeSummarySchema) });
export const recipeListResponse = z.object({ recipes: z.array(recipeSummarySchema), pagination: listPaginationSchema });

/** Where a walk through a user's recipes stands (docs/api.md §10.1). */
export const recipeCursor = listCursor('recipes');
export const recipeListQuery = listQuery(12, recipeCursor);
export const favoriteResponse = z.object({ favorited: z.boolean(), favoriteCount: z.number().int() });
export const repostResponse = z.object({ reposted: z.boolean(), repostCount: z.number().int() });
export const postResponse = z.object({ post: postSchema });
/** Posts read by id: those that can be read, in the order asked. */
export const postsResponse = z.object({ posts: z.array(postSchema) });
export const messageResponse = z.object({ message: z.string() });
export const internalContentResponse = z.object({ content: contentSnapshotSchema });
