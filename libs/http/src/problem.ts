import { STATUS_CODES } from 'node:http';
import type { Problem, ProblemCode, UnauthorizedReason } from '@recipes/contracts';

export type { UnauthorizedReason } from '@recipes/contracts';

/** Error codes of docs/api.md §1, by status. */
export const errorCodes = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'IDEMPOTENCY_KEY_REUSED',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
  504: 'UPSTREAM_TIMEOUT',
} as const satisfies Record<number, ProblemCode>;

export type ErrorStatus = keyof typeof errorCodes;

export interface FieldError {
  path: string;
  message: string;
}

/** An error a handler throws on purpose; the error handler turns it into problem+json as it is. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: ErrorStatus,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** Why a 401 refused the caller (docs/api.md §2). */
    readonly reason?: UnauthorizedReason,
  ) {
    super(detail);
  }
}

/** What a 401 of each reason says, unless its producer says more. */
const unauthorizedDetails: Record<UnauthorizedReason, string> = {
  TOKEN_MISSING: 'A bearer token is required',
  TOKEN_INVALID: 'The token is not valid',
  TOKEN_EXPIRED: 'The token has expired',
  SESSION_ENDED: 'The session has ended',
  REFRESH_TOKEN_REUSED: 'The refresh token was used before: its session has ended',
  ACCOUNT_DELETED: 'The account has been deleted',
  ACCOUNT_SUSPENDED: 'The account is suspended',
};

export const badRequest = (detail: string, errors?: FieldError[]) => new HttpError(400, detail, errors);
/** 401 for a token or session refused, with the `reason` a client acts on (docs/api.md §2). */
export const unauthorized = (reason: UnauthorizedReason, detail = unauthorizedDetails[reason]) =>
  new HttpError(401, detail, undefined, reason);
/** 401 for a wrong username or password: no token was at fault, so no `reason` (docs/api.md §2). */
export const wrongCredentials = (detail: string) => new HttpError(401, detail);
export const forbidden = (detail = 'You are not allowed to do this') => new HttpError(403, detail);
export const notFound = (detail = 'Not found') => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);

export function codeFor(status: number): ProblemCode {
  return errorCodes[status as ErrorStatus] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

export function problem(
  status: number,
  detail: string,
  context: { instance: string; requestId: string },
  errors?: FieldError[],
  reason?: UnauthorizedReason,
): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    code: codeFor(status),
    ...(reason ? { reason } : {}),
    detail,
    instance: context.instance,
    requestId: context.requestId,
    ...(errors ? { errors } : {}),
  };
}

/** The realm of every challenge: one protection space, the whole API. */
export const AUTH_REALM = 'recipes';

/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3): `Bearer realm="recipes"` alone when no token was at
 * fault (none sent, or a wrong password), and with `error="invalid_token"` and `detail` as its description when
 * one was (every `reason` but `TOKEN_MISSING`). The description keeps only the characters RFC 6750 §3 allows in it.
 */
export function bearerChallenge(reason: UnauthorizedReason | undefined, detail: string): string {
  const challenge = `Bearer realm="${AUTH_REALM}"`;
  if (reason === undefined || reason === 'TOKEN_MISSING') return challenge;
  const description = detail.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '');
  return `${challenge}, error="invalid_token", error_description="${description}"`;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
