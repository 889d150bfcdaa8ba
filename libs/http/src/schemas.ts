import { STATUS_CODES } from 'node:http';
import { problemSchema } from '@recipes/contracts';
import { type ErrorStatus, errorCodes, PROBLEM_CONTENT_TYPE } from './problem.js';

/** When each error status is answered (docs/api.md §1), for the OpenAPI document's response descriptions. */
const whenAnswered: Record<ErrorStatus, string> = {
  400: 'The body, the query, a header or the URL is not valid',
  401: 'A required token is missing, or the token or password sent is refused; `reason` says why a token was (docs/api.md §2)',
  403: 'The resource belongs to someone else',
  404: 'Nothing there, or a path id that is not well-formed',
  409: 'A conflict with what exists, or an Idempotency-Key whose first request is still running',
  413: 'The body is over 64 KiB',
  414: 'The request line, or a path segment, is too long',
  415: 'The body is not application/json',
  422: 'An Idempotency-Key sent again with another path or body',
  429: 'A rate limit was hit; Retry-After says when to try again',
  500: 'A bug',
  503: 'Something the request needs is away for now; try again',
  504: 'The service did not answer the gateway in time',
};

/** An error response as the OpenAPI document declares it: problem+json, never plain JSON. */
export interface ProblemResponse {
  description: string;
  content: { [PROBLEM_CONTENT_TYPE]: { schema: typeof problemSchema } };
}

export function problemResponse(status: ErrorStatus): ProblemResponse {
  return {
    description: `${STATUS_CODES[status]} (\`${errorCodes[status]}\`): ${whenAnswered[status]}.`,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } },
  };
}

/** Declares the problem+json body for each error status a route can answer with. */
export function problemResponses<const S extends ErrorStatus>(...statuses: S[]): Record<S, ProblemResponse> {
  return Object.fromEntries(statuses.map((status) => [status, problemResponse(status)])) as Record<S, ProblemResponse>;
}
