/**
 * What domain code says went wrong, in its own words; the HTTP layer (the errors plugin of @recipes/http)
 * is the one place that turns each kind into a status and problem+json, and event handlers read
 * `unavailable` as "try again later".
 */
export type DomainErrorKind = 'invalid' | 'unknown_caller' | 'forbidden' | 'not_found' | 'conflict' | 'unavailable';

export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** The token names an account that does not exist: a well-signed token proves nothing then. */
export const unknownCaller = (message = 'The account has been deleted') => new DomainError('unknown_caller', message);
export const forbidden = (message = 'You are not allowed to do this') => new DomainError('forbidden', message);
export const notFound = (message = 'Not found') => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
/** Something the work needs (another service, the database) cannot answer now; the same request may succeed later. */
export const unavailable = (message: string) => new DomainError('unavailable', message);
