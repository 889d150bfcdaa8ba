import pg from 'pg';

/** A node of PostgreSQL's `EXPLAIN (ANALYZE, FORMAT JSON)` plan, with the fields the tests look at. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  /** The name the query gives the relation scanned, which tells apart two scans of one table. */
  Alias?: string;
  'Actual Rows': number;
  /** With `BUFFERS`: the shared buffers the node (and those under it) found in memory. */
  'Shared Hit Blocks'?: number;
  Plans?: PlanNode[];
}

/** The plan's nodes, depth first. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)];

/**
 * The one query `run` (a repository function) makes, as text and values, sent to a connection that records it
 * instead of answering it. The repository gets `row` back: what it makes of it is of no interest here.
 */
async function onlyQueryOf<Db>(
  run: (db: Db) => Promise<unknown>,
  row: object,
): Promise<{ text: string; values: unknown[] }> {
  const queries: { text: string; values: unknown[] }[] = [];
  const recording = {
    query: async (text: string, values: unknown[] = []) => {
      queries.push({ text, values });
      return { rows: [row], rowCount: 0 };
    },
  };
  await run(recording as unknown as Db);
  if (queries.length !== 1) throw new Error(`expected one query, got ${queries.length}`);
  return queries[0]!;
}

/** The plan of the one query `run` makes, explained (and run) on `pool`: its nodes. */
export async function explainQuery<Db>(
  pool: pg.Pool,
  run: (db: Db) => Promise<unknown>,
  row: object = {},
): Promise<PlanNode[]> {
  const { text, values } = await onlyQueryOf(run, row);
  const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
  return planNodes(rows[0]['QUERY PLAN'][0].Plan);
}

/**
 * The plan PostgreSQL keeps for the one query `run` makes once it is prepared, as libs/db prepares the statements
 * it runs again: after five runs a generic plan, made without the values, may replace the custom ones for the
 * connection's life. Planned here as that generic plan, then run with the values in a transaction rolled back, so
 * a statement that writes leaves nothing behind. Its nodes, with the buffers each touched. With `meanwhile`, the
 * plan is made first (run once, undone), then `meanwhile` changes the tables (on another connection), and the
 * plan kept from before is the one explained: as a connection keeps its plans while a young table grows.
 */
export async function explainGenericPlan<Db>(
  pool: pg.Pool,
  run: (db: Db) => Promise<unknown>,
  row: object = {},
  meanwhile?: () => Promise<void>,
): Promise<PlanNode[]> {
  const { text, values } = await onlyQueryOf(run, row);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE explained AS ${text}`);
    // EXECUTE takes no parameters of its own: its values go in as literals, written as pg would send them.
    const literals = values.map((value) => {
      const prepared = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils.prepareValue(
        value,
      );
      return prepared === null ? 'NULL' : client.escapeLiteral(String(prepared));
    });
    const execute = `EXECUTE explained${literals.length > 0 ? `(${literals.join(', ')})` : ''}`;
    if (meanwhile) {
      await client.query('SAVEPOINT planned');
      await client.query(execute);
      await client.query('ROLLBACK TO SAVEPOINT planned');
      await meanwhile();
    }
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${execute}`);
    return planNodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.query('DEALLOCATE ALL').catch(() => undefined);
    client.release();
  }
}
