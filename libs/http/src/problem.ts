import { STATUS_CODES } from 'node:http';
import type { Problem } from '@recipes/contracts';

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
} as const;

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
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new HttpError(400, detail, errors);
export const unauthorized = (detail = 'Authentication required') => new HttpError(401, detail);
export const forbidden = (detail = 'You are not allowed to do this') => new HttpError(403, detail);
export const notFound = (detail = 'Not found') => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);

export function codeFor(status: number): string {
  return errorCodes[status as ErrorStatus] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

export function problem(
  status: number,
  detail: string,
  context: { instance: string; requestId: string },
  errors?: FieldError[],
): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    code: codeFor(status),
    detail,
    instance: context.instance,
    requestId: context.requestId,
    ...(errors ? { errors } : {}),
  };
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
