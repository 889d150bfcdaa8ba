import type pg from 'pg';

const SYSTEM_SCHEMAS = ['pg_catalog', 'information_schema', 'pg_toast'];
/** Every column a user's id or name could be written in: text of any kind, uuids, JSON, and arrays of them. */
const SEARCHED_TYPES = ['text', 'character varying', 'character', 'uuid', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED'];

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A cell holding one of the searched values: where, and the whole row's primary text. */
export interface Leftover {
  table: string;
  column: string;
  row: string;
}

/**
 * Every cell of every table of every schema but the system's that holds one of `needles` (any case,
 * anywhere in its text). The tables and columns are read from the catalogue at each call, so a table added
 * later is searched without this changing.
 */
export async function findLeftovers(db: Pick<pg.ClientBase, 'query'>, needles: string[]): Promise<Leftover[]> {
  const { rows: columns } = await db.query<{ schema: string; table: string; column: string }>(
    `SELECT c.table_schema AS schema, c.table_name AS "table", c.column_name AS "column"
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE t.table_type = 'BASE TABLE' AND c.table_schema <> ALL($1::text[]) AND c.data_type = ANY($2::text[])
      ORDER BY 1, 2, 3`,
    [SYSTEM_SCHEMAS, SEARCHED_TYPES],
  );
  const found: Leftover[] = [];
  for (const { schema, table, column } of columns) {
    const { rows } = await db.query<{ row: string }>(
      `SELECT t::text AS row FROM ${quoted(schema)}.${quoted(table)} t
        WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS needle WHERE strpos(lower(t.${quoted(column)}::text), lower(needle)) > 0)`,
      [needles],
    );
    for (const { row } of rows) found.push({ table: `${schema}.${table}`, column, row });
  }
  return found;
}

/** How many tables and columns `findLeftovers` searches: a search of nothing proves nothing. */
export async function searchedColumnCount(
  db: Pick<pg.ClientBase, 'query'>,
): Promise<{ tables: number; columns: number }> {
  const { rows } = await db.query<{ tables: number; columns: number }>(
    `SELECT count(DISTINCT (c.table_schema, c.table_name))::int AS tables, count(*)::int AS columns
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE t.table_type = 'BASE TABLE' AND c.table_schema <> ALL($1::text[]) AND c.data_type = ANY($2::text[])`,
    [SYSTEM_SCHEMAS, SEARCHED_TYPES],
  );
  return rows[0]!;
}
