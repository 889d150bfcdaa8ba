import { problemSchema } from '@recipes/contracts';
import type { ErrorStatus } from './problem.js';

/** Declares the problem+json body for each error status a route can answer with. */
export function problemResponses<const S extends ErrorStatus>(...statuses: S[]): Record<S, typeof problemSchema> {
  return Object.fromEntries(statuses.map((status) => [status, problemSchema])) as Record<S, typeof problemSchema>;
}
