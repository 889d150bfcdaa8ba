import { unauthorizedReasons, type UnauthorizedReason } from '@recipes/contracts';
import { expect } from 'vitest';

/** A quoted parameter's value as RFC 6750 §3 allows it: printable ASCII but `"` and `\`. */
const VALUE = '[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]*';
const CHALLENGE = new RegExp(`^Bearer(?: [a-z_]+="${VALUE}"(?:, [a-z_]+="${VALUE}")*)?$`);
const PARAM = new RegExp(`([a-z_]+)="(${VALUE})"`, 'g');

/**
 * The parameters of a `WWW-Authenticate` value that is one well-formed bearer challenge (RFC 6750 §3, each
 * parameter quoted), by name; undefined for anything else (missing, another scheme, a stray character).
 */
export function parseBearerChallenge(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'string' || !CHALLENGE.test(value)) return undefined;
  return Object.fromEntries([...value.matchAll(PARAM)].map(([, name, param]) => [name, param]));
}

/**
 * Asserts the challenge of a 401 (docs/api.md §2): `Bearer realm="recipes"`, with `error="invalid_token"` and a
 * description exactly when a token was refused (a `reason` but `TOKEN_MISSING`).
 */
export function expectBearerChallenge(header: unknown, reason: string | undefined): void {
  const params = parseBearerChallenge(header);
  expect(params, `WWW-Authenticate: ${String(header)}`).toBeDefined();
  if (reason !== undefined) expect(unauthorizedReasons).toContain(reason as UnauthorizedReason);
  const tokenRefused = reason !== undefined && reason !== 'TOKEN_MISSING';
  expect(params, `WWW-Authenticate: ${String(header)}`).toEqual(
    tokenRefused
      ? { realm: 'recipes', error: 'invalid_token', error_description: expect.stringMatching(/\S/) }
      : { realm: 'recipes' },
  );
}
