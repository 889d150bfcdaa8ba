import { z } from 'zod';

/** The request id every service answers with and passes on to the services it asks (docs/api.md §1). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The author of the OpenAPI document's examples. */
export const AUTHOR_EXAMPLE = {
  id: '019375a2-7c1e-7d3a-9b8f-2c4d6e8f0a1b',
  username: 'ada',
  avatarUrl: 'https://images.example.com/ada.jpg',
};

/** Author summary embedded wherever a user is shown (docs/api.md §3). */
export const authorSchema = z
  .object({
    id: z.uuid(),
    username: z.string(),
    avatarUrl: z.string().nullable(),
  })
  .meta({ id: 'Author', examples: [AUTHOR_EXAMPLE] });
export type Author = z.infer<typeof authorSchema>;

/** Every `code` a problem carries (docs/api.md §1: one per status, and `BAD_REQUEST` for any other client error). */
export const problemCodes = [
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
] as const;
export type ProblemCode = (typeof problemCodes)[number];

/**
 * Why a `401` refused the caller, and so what the client does next (docs/api.md §2). `ACCOUNT_SUSPENDED` has no
 * producer yet: suspension comes with moderation.
 */
export const unauthorizedReasons = [
  'TOKEN_MISSING',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'SESSION_ENDED',
  'REFRESH_TOKEN_REUSED',
  'ACCOUNT_DELETED',
  'ACCOUNT_SUSPENDED',
] as const;
export type UnauthorizedReason = (typeof unauthorizedReasons)[number];

/** RFC 9457 problem details as docs/api.md §1 describes them. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.enum(problemCodes).meta({
    description: 'What went wrong, one code per status: docs/api.md §1 (Errors) says what each means.',
  }),
  reason: z
    .enum(unauthorizedReasons)
    .optional()
    .meta({
      description:
        'On a `401` about the token or session: why, and so what to do (sign in, refresh, sign out, show that ' +
        'the account was deleted): docs/api.md §2 (Why a 401). Absent on a wrong username or password.',
    }),
  detail: z.string(),
  instance: z.string(),
  requestId: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof problemSchema>;

export * from './paging.js';
export * from './cursor.js';
export * from './text.js';

/** A username as docs/api.md §3 allows it. */
export const usernameSchema = z.string().regex(/^[A-Za-z0-9_]{3,30}$/, 'must be 3-30 letters, digits or underscores');

/**
 * An absolute http(s) URL of at most 2048 characters, stored as given: so no white space or control
 * characters, which the URL parser would quietly drop or encode (and NUL cannot even be stored).
 */
export const httpUrlSchema = z
  .string()
  .max(2048)
  .refine((value) => !/[\s\p{Cc}]/u.test(value), 'must not contain white space or control characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL')
  .meta({
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?:[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$',
    description:
      'An absolute http(s) URL with a host, at most 2048 characters, without white space or control characters',
    examples: ['https://images.example.com/velvia.jpg'],
  });

/** The path of a resource named by its id: every id the API hands out is a UUID. */
export const idParams = z.object({ id: z.uuid() });

const uuidSchema = z.uuid();

/** Whether `value` is a UUID: anything else names nothing, and is not worth a look-up. */
export const isUuid = (value: string): boolean => uuidSchema.safeParse(value).success;

/** Timestamps as docs/api.md §1 writes them. */
export const timestampSchema = z.iso.datetime();
export * from './export.js';
