import type pg from 'pg';

/** A node of PostgreSQL's `EXPLAIN (ANALYZE, FORMAT JSON)` plan, with the fields the tests look at. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  /** The name the query gives the relation scanned, which tells apart two scans of one table. */
  Alias?: string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

/** The plan's nodes, depth first. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)];

/**
 * Runs `run` (a repository function making one query) against a connection that explains that query on
 * `pool` instead of answering it, and returns the plan's nodes. The repository gets `row` back: what it
 * makes of it is of no interest here.
 */
export async function explainQuery<Db>(
  pool: pg.Pool,
  run: (db: Db) => Promise<unknown>,
  row: object = {},
): Promise<PlanNode[]> {
  const plans: PlanNode[] = [];
  const explaining = {
    query: async (text: string, values: unknown[]) => {
      const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      plans.push(rows[0]['QUERY PLAN'][0].Plan);
      return { rows: [row], rowCount: 0 };
    },
  };
  await run(explaining as unknown as Db);
  if (plans.length !== 1) throw new Error(`expected one query, got ${plans.length}`);
  return planNodes(plans[0]!);
}
