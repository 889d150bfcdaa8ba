import { type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { expect } from 'vitest';
import type { UsersConfig } from '../src/config.js';
import { type UsersParts, usersService } from '../src/service.js';

export { bearer, expectBearerChallenge, expectProblem, expectUnauthorized } from '@recipes/testing/service';

/** A user as the API answers a registration: the author shape, and their token. */
export interface Registered {
  user: { id: string; username: string; avatarUrl: string | null };
  token: string;
}

/** Limits no test of the routes reaches, for the files that do not test the limits themselves. */
export const generousLimits = {
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '1000',
  LOGIN_FAILURES_PER_ADDRESS: '1000',
  LOGIN_LIMIT_PER_ADDRESS: '1000',
  REGISTER_LIMIT_PER_ADDRESS: '1000',
};

export interface UsersHarness extends ServiceHarness<UsersConfig, UsersParts> {
  /** Registers `username` through the API (password `password123` unless `extra` says otherwise), expecting 201. */
  registered(username: string, extra?: Record<string, unknown>): Promise<Registered>;
}

/** The users service on a fresh database of its own; it asks no other service. */
export async function usersHarness(env: Record<string, string> = {}): Promise<UsersHarness> {
  const harness = await serviceHarness(usersService, { env });
  return {
    ...harness,
    async registered(username, extra = {}) {
      const response = await harness.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { username, password: 'password123', ...extra },
      });
      expect(response.statusCode).toBe(201);
      return response.json() as Registered;
    },
  };
}
