import { problemSchema } from '@recipes/contracts';
import { expect } from 'vitest';

/**
 * Asserts a problem+json answer of the gateway's own with `status` and `code`, naming the request id the
 * gateway gave the request; returns the problem.
 */
export function expectProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = problemSchema.parse(response.json());
  expect(body).toMatchObject({ status, code });
  expect(body.requestId).toBe(response.headers['x-request-id']);
  return body;
}
