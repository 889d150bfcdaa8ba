import type { Queryable } from './pool.js';

/** The SQL of a listing: its page, and the count of all it holds, as one statement reads them. */
export interface PageStatement {
  /** A query of one row whose `total` column is how many the listing holds in all. */
  count: string;
  /** The page's rows, each with a non-null `id`; its LIMIT and OFFSET stay inside it. */
  page: string;
}

/**
 * The count and the page as one statement: the page is joined to the count rather than the count to each
 * row (`count(*) OVER ()` would read the whole listing, LIMIT or not), so both keep their own plan, and a
 * page past the end still has its total: one row with the page's columns null, told apart by `present`.
 * The rows keep `listingTotal`: each caller copies them once, without it and its own helper columns.
 */
async function readJoined<Row>(
  db: Queryable,
  count: string,
  page: string,
  values: unknown[],
  present: string,
): Promise<{ rows: (Row & { listingTotal: number })[]; total: number }> {
  const { rows } = await db.query<Row & { listingTotal: number }>(
    `SELECT listed.total AS "listingTotal", paged.* FROM (${count}) AS listed LEFT JOIN LATERAL (${page}) AS paged ON true`,
    values,
  );
  const total = rows[0]?.listingTotal ?? 0;
  const onPage = rows.filter(
    (row) =>
      (row as Record<string, unknown>)[present] !== null && (row as Record<string, unknown>)[present] !== undefined,
  );
  return { rows: onPage, total };
}

/**
 * A page and its listing's total from one statement, so from one snapshot: two statements (and all the
 * more two connections) each see what had committed when they began, and a writer in between makes the
 * page disagree with its total. `values` serve both.
 */
export async function readPage<Row extends { id: unknown }>(
  db: Queryable,
  { count, page }: PageStatement,
  values: unknown[],
): Promise<{ rows: Row[]; total: number }> {
  const { rows, total } = await readJoined<Row>(db, count, page, values, 'id');
  return { rows: rows.map(({ listingTotal: _, ...row }) => row as unknown as Row), total };
}

/** A place in a listing: its sort key (a timestamptz, to the microsecond, as text) and its tie-break. */
export interface Position {
  at: string;
  id: string;
}

/** The order of a listing: a timestamptz column, then a column unique in the listing, both one way. */
export interface ListingOrder {
  at: string;
  id: string;
  /** The tie-break's SQL type, which a position's `id` is cast to. */
  idType: 'uuid' | 'text';
  direction: 'asc' | 'desc';
}

/** The SQL of a listing that pages by position (keyset) as well as by number (OFFSET). */
export interface ListingStatement {
  /** A query of one row whose `total` column is how many the listing holds in all. */
  count: string;
  /** The select list of a row. */
  columns: string;
  /** FROM, joins and WHERE (which it must have): the rows of the listing, unordered. */
  from: string;
  order: ListingOrder;
}

/** A page by its number (an OFFSET), or the items after a position (a keyset seek: no OFFSET). */
export type ListingRequest = { limit: number; offset: number } | { limit: number; after: Position };

export interface ListingPage<Row> {
  rows: Row[];
  total: number;
  /** The position of the page's last row when more follow it, else null. */
  next: Position | null;
}

/** A timestamptz as a position holds it: UTC to the microsecond, the precision PostgreSQL keeps. */
const positionAt = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A page of a listing and its total from one statement, as `readPage`, by number or after a position.
 * After a position it seeks with a row comparison, `(at, id) < (…)` (or `>` ascending), which an index on
 * the listing's filter columns then `(at, id)` in the same direction reads as a range: the page costs
 * `limit` index entries wherever it starts, and an item added or deleted before it moves nothing, so a
 * walk by positions sees each item that stayed exactly once (docs/api.md §10.1). It reads one row more
 * than `limit` to know whether another page follows. `values` are the count's and the rows'
 * parameters; the page's own come after them.
 */
export async function readListing<Row>(
  db: Queryable,
  statement: ListingStatement,
  values: unknown[],
  request: ListingRequest,
): Promise<ListingPage<Row>> {
  const { at, id, idType, direction } = statement.order;
  const parameters = [...values];
  const parameter = (value: unknown) => `$${parameters.push(value)}`;
  const seek =
    'after' in request
      ? ` AND (${at}, ${id}) ${direction === 'desc' ? '<' : '>'} (${parameter(request.after.at)}::timestamptz, ${parameter(request.after.id)}::${idType})`
      : '';
  const limit = parameter(request.limit + 1);
  const offset = 'offset' in request ? ` OFFSET ${parameter(request.offset)}` : '';
  const page = `SELECT ${positionAt(at)} AS "positionAt", (${id})::text AS "positionId", ${statement.columns}
                  ${statement.from}${seek}
                 ORDER BY ${at} ${direction}, ${id} ${direction} LIMIT ${limit}${offset}`;
  const { rows, total } = await readJoined<Row & { positionAt: string; positionId: string }>(
    db,
    statement.count,
    page,
    parameters,
    'positionId',
  );
  const shown = rows.slice(0, request.limit);
  const last = shown.at(-1);
  const next = rows.length > request.limit && last ? { at: last.positionAt, id: last.positionId } : null;
  // Each row copied once, without the helper columns of both steps.
  return {
    rows: shown.map(({ listingTotal: _, positionAt: __, positionId: ___, ...row }) => row as unknown as Row),
    total,
    next,
  };
}
