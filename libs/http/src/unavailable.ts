import { DomainError } from '@recipes/contracts';
// The classification alone: the gateway, which has no database, loads no driver for it.
import { isTransientDatabaseError } from '@recipes/db/transient';
import { HttpError } from './problem.js';

/**
 * Whether `error` says that something the work needs is away for the moment, rather than that the work
 * itself is wrong: a request gets 503 for it, an event handler tries again once it is back (see
 * @recipes/runtime). A look-up in another service that could not be answered is an `unavailable` domain error.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  if (error instanceof DomainError) return error.kind === 'unavailable';
  if (error instanceof HttpError) return error.status === 503;
  // The database restarting, a refused or dropped connection, a query over its time limit, a lock not had: the
  // same work a little later may well succeed (@recipes/db says which errors are so).
  return isTransientDatabaseError(error);
}
