import { DomainError } from '@recipes/contracts';
import { HttpError } from './problem.js';

/**
 * A dependency that is gone or overloaded for the moment (the database restarting, a refused or dropped
 * connection, a query over its time limit): the client may try again, so 503 rather than 500. PostgreSQL's
 * codes: class 08 (connection exception), 53300 (no connection slot left), 57P01-57P03 (shutting down,
 * starting up), 57014 (statement timeout), 55P03 (lock timeout), 25P03 (idle-in-transaction timeout).
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  '55P03',
  '25P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
/** node-postgres's own words for a connection that broke or could not be made in time. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)/;

/**
 * Whether `error` says that something the work needs is away for the moment, rather than that the work
 * itself is wrong: a request gets 503 for it, an event handler tries again once it is back (see
 * @recipes/runtime). A look-up in another service that could not be answered is an `unavailable` domain error.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  if (error instanceof DomainError) return error.kind === 'unavailable';
  if (error instanceof HttpError) return error.status === 503;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message))
  );
}
