/**
 * Failures that say the database is away or busy for the moment, not that the work is wrong: the same
 * work done again a little later may well succeed. PostgreSQL's codes: class 08 (connection exception),
 * 40001 (serialization failure), 40P01 (deadlock), 55P03 (lock not available), 57014 (statement
 * timeout), 57P01-57P03 (shutting down, crashed, starting up), 53300 (no connection slot left), 25P03
 * (idle-in-transaction timeout).
 */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014', '57P01', '57P02', '57P03', '53300', '25P03']);
/** Node's codes for a connection refused, reset, broken or never answered. */
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
/**
 * node-postgres's words for a connection that broke or could not be made, found anywhere in a message:
 * some libraries (node-pg-migrate) wrap the error in one of their own that keeps only its text.
 */
const TRANSIENT_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|terminating connection due to administrator command|the database system is (starting up|shutting down|not yet accepting connections|in recovery mode)/;

/** Whether `error`, or any error it wraps (`cause`, an AggregateError's `errors`), is a transient one. */
export function isTransientDatabaseError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (code.startsWith('08') || TRANSIENT_SQLSTATES.has(code))) return true;
  if (typeof code === 'string' && TRANSIENT_NODE_CODES.has(code)) return true;
  if (typeof message === 'string' && TRANSIENT_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isTransientDatabaseError(inner, depth + 1))) return true;
  return isTransientDatabaseError(cause, depth + 1);
}
