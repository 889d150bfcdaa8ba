import { hash } from 'node:crypto';
import { z } from 'zod';
import { paginationSchema, pageQuery, type PageQuery } from './paging.js';

/**
 * A place in a listing (docs/api.md §10.1): the sort key of the last item shown, a timestamp written to
 * the microsecond as PostgreSQL keeps it (a JavaScript Date would round it, and the next page would
 * repeat or skip an item), and its tie-break, unique in the listing (an id, or a group key). A listing
 * whose items move as they change (groups, ordered by their latest notification) also keeps the point its
 * walk began at, `asOf`, and orders every page as the items stood then.
 */
export interface ListPosition {
  at: string;
  id: string;
  asOf?: string | undefined;
}

/** The sort key as a cursor holds it: UTC to the microsecond. */
const AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/;
/** Longer than any cursor the service writes (a group key is the longest tie-break); refused unread. */
const MAX_CURSOR_LENGTH = 400;
/** A point of a sequence: a PostgreSQL bigint's digits, no leading zero. */
const AS_OF = /^(0|[1-9]\d{0,18})$/;
const isSequencePoint = (text: string) => AS_OF.test(text) && BigInt(text) <= 2n ** 63n - 1n;

function isRealInstant(at: string): boolean {
  const parts = AT.exec(at);
  if (!parts) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // A 31st of April or a 25th hour would be moved to another day by Date.UTC.
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/**
 * The cursors of one kind of listing: opaque to clients (base64url of the position and a check), and
 * strictly read back, so that a cursor the service did not write, one cut or changed, or one of another
 * kind of listing is `400 VALIDATION_ERROR` rather than a wrong page or a 500. The check is a hash of the
 * kind and the position: a position is no secret (any client could walk there), so it needs no key; it
 * only makes a cursor that was not written for this kind of listing fail to read.
 */
export function listCursor(kind: string, tieBreak: z.ZodType<string> = z.uuid()) {
  const check = (fields: string[]) => hash('sha256', [kind, ...fields].join('\n'), 'base64url').slice(0, 16);

  function encode({ at, id, asOf }: ListPosition): string {
    const fields = asOf === undefined ? [at, id] : [at, id, asOf];
    return Buffer.from([...fields, check(fields)].join(' '), 'utf8').toString('base64url');
  }

  function decode(cursor: string): ListPosition | undefined {
    if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
    const bytes = Buffer.from(cursor, 'base64url');
    // Only the one spelling the service writes: no padding, no trailing bits.
    if (bytes.toString('base64url') !== cursor) return undefined;
    const parts = bytes.toString('utf8').split(' ');
    if (parts.length !== 3 && parts.length !== 4) return undefined;
    const fields = parts.slice(0, -1);
    const [at, id, asOf] = fields as [string, string, string | undefined];
    if (
      !isRealInstant(at) ||
      !tieBreak.safeParse(id).success ||
      (asOf !== undefined && !isSequencePoint(asOf)) ||
      parts.at(-1) !== check(fields)
    )
      return undefined;
    return asOf === undefined ? { at, id } : { at, id, asOf };
  }

  /** The `cursor` query parameter: absent, or a cursor of this kind of listing, read into its position. */
  const schema = z
    .string()
    .optional()
    .transform((cursor, context): ListPosition | undefined => {
      if (cursor === undefined) return undefined;
      const position = decode(cursor);
      if (!position)
        context.addIssue({ code: 'custom', message: 'must be a cursor from a previous answer of this list' });
      return position;
    })
    .meta({
      pattern: '^[A-Za-z0-9_-]+$',
      maxLength: MAX_CURSOR_LENGTH,
      description:
        'An opaque cursor from `pagination.nextCursor` (or a `Link` header) of this list; in place of `page`',
    });

  return { encode, decode, schema };
}
export type ListCursor = ReturnType<typeof listCursor>;

/**
 * `page`, `limit` (docs/api.md §1) and `cursor` (docs/api.md §10.1): a cursor, when sent, takes the place of `page`.
 */
export function listQuery(defaultLimit: number, cursor: ListCursor) {
  return pageQuery(defaultLimit).extend({ cursor: cursor.schema });
}
export type ListQuery = PageQuery & { cursor?: ListPosition | undefined };

/**
 * The pagination object of a list that pages by cursor too (docs/api.md §10.1): `page` is null on an
 * answer to a cursor, which says where it starts instead; `nextCursor` is null on the last page.
 */
export const listPaginationSchema = paginationSchema
  .extend({
    page: z.number().int().nullable(),
    nextCursor: z.string().nullable(),
  })
  .meta({
    id: 'Pagination',
    examples: [{ page: 1, limit: 20, total: 42, totalPages: 3, nextCursor: 'MjAyNi0xMS0yMlQxMDowMDowMC4wMDBaIDAxOTM' }],
  });
export type ListPagination = z.infer<typeof listPaginationSchema>;

/** The pagination of `query`'s answer, which found `total` in all and, when more follows, `next`. */
export function listPagination(
  query: ListQuery,
  total: number,
  next: ListPosition | null,
  cursor: ListCursor,
): ListPagination {
  return {
    page: query.cursor ? null : query.page,
    limit: query.limit,
    total,
    totalPages: Math.ceil(total / query.limit),
    nextCursor: next ? cursor.encode(next) : null,
  };
}

/** What a repository is asked for: a page by its number (an OFFSET), or the items after a position. */
export type ListRequest = { limit: number; offset: number } | { limit: number; after: ListPosition };

export function listRequest({ page, limit, cursor }: ListQuery): ListRequest {
  return cursor ? { limit, after: cursor } : { limit, offset: (page - 1) * limit };
}
