import { z } from 'zod';

/** The request id every service answers with and passes on to the services it asks (docs/api.md §1). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Author summary embedded wherever a user is shown (docs/api.md §3). */
export const authorSchema = z.object({
  id: z.uuid(),
  username: z.string(),
  avatarUrl: z.string().nullable(),
});
export type Author = z.infer<typeof authorSchema>;

/** RFC 9457 problem details as docs/api.md §1 describes them. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string(),
  detail: z.string(),
  instance: z.string(),
  requestId: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** Query-string integer: digits only, so "1.5", "1e3", " 2" and "" are all rejected. */
const positiveIntParam = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a positive integer')
  .transform(Number)
  .refine((n) => n >= 1, 'must be a positive integer');

export const MAX_PAGE_SIZE = 100;

/** `page` and `limit` as docs/api.md §1 defines them; `limit` above 100 is clamped, not rejected. */
export function pageQuery(defaultLimit: number) {
  return z.object({
    page: positiveIntParam.optional().default(1),
    limit: positiveIntParam
      .optional()
      .transform((limit) => Math.min(limit ?? defaultLimit, MAX_PAGE_SIZE)),
  });
}
export type PageQuery = z.infer<ReturnType<typeof pageQuery>>;

export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
export type Pagination = z.infer<typeof paginationSchema>;

export function pagination({ page, limit }: PageQuery, total: number): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/** SQL OFFSET for a page. */
export function pageOffset({ page, limit }: PageQuery): number {
  return (page - 1) * limit;
}

/** A username as docs/api.md §3 allows it. */
export const usernameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_]{3,30}$/, 'must be 3-30 letters, digits or underscores');

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
  }, 'must be an http(s) URL');

/** Timestamps as docs/api.md §1 writes them. */
export const timestampSchema = z.iso.datetime();
