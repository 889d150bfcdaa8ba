import pg from 'pg';

/** Row count and an md5 over the rows (in a stable order) of each table, by `schema.table`. */
export type Fingerprint = Record<string, { rows: number; md5: string }>;

const SYSTEM_SCHEMAS = ['pg_catalog', 'information_schema', 'pg_toast'];

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Every table of every service schema in the system's database: what no rejected request may change. */
export async function fingerprint(client: pg.ClientBase): Promise<Fingerprint> {
  const { rows: tables } = await client.query<{ schema: string; table: string }>(
    `SELECT table_schema AS schema, table_name AS "table" FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema <> ALL($1::text[]) ORDER BY 1, 2`,
    [SYSTEM_SCHEMAS],
  );
  const result: Fingerprint = {};
  for (const { schema, table } of tables) {
    const { rows } = await client.query<{ rows: number; md5: string }>(
      `SELECT count(*)::int AS rows, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS md5
         FROM ${quoted(schema)}.${quoted(table)} t`,
    );
    result[`${schema}.${table}`] = rows[0]!;
  }
  return result;
}

/**
 * Waits until the system is at rest: every outbox relayed and the fingerprint the same twice in a row
 * `quietMs` apart, so that events still in flight are not taken for changes made by a request.
 */
export async function settledFingerprint(
  client: pg.ClientBase,
  { quietMs = 750, timeoutMs = 20_000 } = {},
): Promise<Fingerprint> {
  const deadline = Date.now() + timeoutMs;
  let previous = JSON.stringify(await fingerprint(client));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const current = await fingerprint(client);
    const pendingEvents = Object.entries(current).some(([table, { rows }]) => table.endsWith('.outbox') && rows > 0);
    if (!pendingEvents && JSON.stringify(current) === previous) return current;
    if (Date.now() > deadline) throw new Error(`the database did not settle within ${timeoutMs} ms`);
    previous = JSON.stringify(current);
  }
}

/** A client on the system's database, for the duration of `use`. */
export async function withDatabase<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
