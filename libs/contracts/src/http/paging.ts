import { z } from 'zod';

/** Query-string integer: digits only, so "1.5", "1e3", " 2" and "" are all rejected. */
const positiveIntParam = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a positive integer')
  .transform(Number)
  .refine((n) => n >= 1, 'must be a positive integer')
  .meta({
    pattern: '^0*[1-9][0-9]*$',
    maxLength: 9,
    description: 'A positive integer (1 or more), in at most 9 digits',
  });

export const MAX_PAGE_SIZE = 100;

/** `page` and `limit` as docs/api.md §1 defines them; `limit` above 100 is clamped, not rejected. */
export function pageQuery(defaultLimit: number) {
  return z.object({
    page: positiveIntParam.optional().default(1),
    limit: positiveIntParam.optional().transform((limit) => Math.min(limit ?? defaultLimit, MAX_PAGE_SIZE)),
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
