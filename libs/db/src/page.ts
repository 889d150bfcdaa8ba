import type { Queryable } from './pool.js';

/** The SQL of a listing: its page, and the count of all it holds, as one statement reads them. */
export interface PageStatement {
  /** A query of one row whose `total` column is how many the listing holds in all. */
  count: string;
  /** The page's rows, each with a non-null `id`; its LIMIT and OFFSET stay inside it. */
  page: string;
}

/**
 * A page and its listing's total from one statement, so from one snapshot: two statements (and all the
 * more two connections) each see what had committed when they began, and a writer in between makes the
 * page disagree with its total. The page is joined to the count rather than the count to each row
 * (`count(*) OVER ()` would read the whole listing, LIMIT or not), so both keep their own plan, and a
 * page past the end still has its total: one row with the page's columns null. `values` serve both.
 */
export async function readPage<Row extends { id: unknown }>(
  db: Queryable,
  { count, page }: PageStatement,
  values: unknown[],
): Promise<{ rows: Row[]; total: number }> {
  const { rows } = await db.query<Row & { listingTotal: number }>(
    `SELECT listed.total AS "listingTotal", paged.* FROM (${count}) AS listed LEFT JOIN LATERAL (${page}) AS paged ON true`,
    values,
  );
  const total = rows[0]?.listingTotal ?? 0;
  const onPage = rows.filter((row) => row.id !== null && row.id !== undefined);
  return { rows: onPage.map(({ listingTotal: _, ...row }) => row as unknown as Row), total };
}
