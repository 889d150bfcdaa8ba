import pg from 'pg';
import { joinSharedTransaction } from './ambient.js';
import { PreparingClient } from './prepared.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything a repository can run a query on: the pool, or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

interface WarnLogger {
  warn(object: object, message: string): void;
}

/**
 * Server-side limits on every connection of the pool, so that no request outlives its answer: a query
 * still running after the gateway has given up (its upstream timeout is 10 s) would only hold a
 * connection and its locks for nobody. Each becomes an error that the HTTP layer answers with 503.
 */
export interface DatabaseTimeouts {
  /** Longest a statement may run (`statement_timeout`). */
  statementMs: number;
  /** Longest a statement waits for a lock (`lock_timeout`). */
  lockMs: number;
  /** Longest a transaction may sit idle before the server ends the session (`idle_in_transaction_session_timeout`). */
  idleInTransactionMs: number;
}

export interface PoolSettings {
  connectionString: string;
  /** The service's own schema: unqualified names in its SQL resolve there. */
  schema?: string;
  /** Settings of every session, sent as the connection starts (no round trip); names and values without spaces. */
  settings?: Readonly<Record<string, string>>;
  max?: number;
  applicationName: string;
  logger: WarnLogger;
  /** A service's pool always has them (see the DATABASE_*_TIMEOUT_MS settings); without, the server's own apply. */
  timeouts?: DatabaseTimeouts;
}

export function createPool({
  connectionString,
  schema,
  settings = {},
  max = 10,
  applicationName,
  logger,
  timeouts,
}: PoolSettings): pg.Pool {
  const options = Object.entries({ ...(schema ? { search_path: schema } : {}), ...settings }).map(
    ([name, value]) => `-c ${name}=${value}`,
  );
  const pool = new pg.Pool({
    connectionString,
    ...(options.length > 0 ? { options: options.join(' ') } : {}),
    max,
    Client: PreparingClient,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...(timeouts
      ? {
          statement_timeout: timeouts.statementMs,
          lock_timeout: timeouts.lockMs,
          idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
        }
      : {}),
  });
  // An idle client loses its server (restart, failover): the pool drops it and makes a new one later.
  // Without a listener the 'error' event would crash the process.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle database connection lost'));
  // And a client out of the pool may hear of it between two queries, or twice (pool.query listens only
  // once): every client listens for as long as it lives, so that no 'error' ever goes unheard. Whoever
  // is using the client still learns of the loss from the query that fails.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. While the
 * client is checked out it listens for 'error' (the server went away, e.g. a restart): unheard, that
 * event would crash the process; heard, the broken client is discarded instead of returned to the pool.
 * Inside a `SharedTransaction` of the same pool, `work` joins that one instead, in a savepoint.
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const joined = joinSharedTransaction(pool, work);
  if (joined) return joined;
  return inTransaction(pool, 'BEGIN', work);
}

/**
 * `withTransaction` whose first statement, `opening` (one without parameters), goes with its BEGIN in one
 * round trip (PostgreSQL's simple protocol takes both at once): `work` gets its rows. For a hot loop whose
 * every transaction starts the same way (the outbox relay's claim); never joins a `SharedTransaction`.
 */
export async function withTransactionOpenedBy<R extends pg.QueryResultRow, T>(
  pool: pg.Pool,
  opening: string,
  work: (client: pg.PoolClient, rows: R[]) => Promise<T>,
): Promise<T> {
  return inTransaction(pool, `BEGIN; ${opening}`, (client, results) => work(client, (results[1]?.rows ?? []) as R[]));
}

async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient, results: pg.QueryResult[]) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    // One result for BEGIN alone, an array of them for BEGIN and a statement sent with it.
    const begun: pg.QueryResult | pg.QueryResult[] = await client.query(begin);
    const result = await work(client, Array.isArray(begun) ? begun : [begun]);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

/**
 * Runs `work`, one statement (atomic by itself, so it needs no BEGIN and COMMIT of its own), straight on
 * the pool; or, inside a `SharedTransaction` of the pool, in that one, as `withTransaction` would, so that
 * it still commits or rolls back with it (e.g. with the response an idempotent request keeps).
 */
export function withStatement<T>(pool: pg.Pool, work: (db: Queryable) => Promise<T>): Promise<T> {
  return joinSharedTransaction(pool, work) ?? work(pool);
}

/** Readiness: can the pool run a query right now? */
export async function isDatabaseReachable(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** SQLSTATE of a PostgreSQL error, if `error` is one. */
export function sqlState(error: unknown): string | undefined {
  return error instanceof pg.DatabaseError ? error.code : undefined;
}

export const UNIQUE_VIOLATION = '23505';
