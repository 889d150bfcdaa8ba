import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generousLimits, type UsersHarness, usersHarness } from '../support.js';

/**
 * Refreshes racing each other (docs/api.md §11.1): however many presentations of one refresh token
 * arrive at once, they get one successor between them, and the session stays one family.
 */
let harness: UsersHarness;
beforeAll(async () => {
  harness = await usersHarness({ ...generousLimits, REFRESH_LIMIT_PER_SESSION: '1000' });
  await harness.registered('racer');
});
afterAll(() => harness.close());

interface Tokens {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

const login = async () =>
  (await harness.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'racer', password: 'password123' } })).json() as Tokens;
const refresh = (refreshToken: string) => harness.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } });
const sessionOf = (tokens: Tokens) => JSON.parse(Buffer.from(tokens.token.split('.')[1]!, 'base64url').toString()).sid as string;

describe('parallel refreshes of one token', () => {
  it('give one successor, the same answer to each, and never a second live family', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 0, max: 3 }), async (parallel, earlierRotations) => {
        let tokens = await login();
        const session = sessionOf(tokens);
        for (let i = 0; i < earlierRotations; i += 1) tokens = (await refresh(tokens.refreshToken)).json() as Tokens;
        const { rows: before } = await harness.pool.query<{ generation: number }>('SELECT generation FROM sessions WHERE id = $1', [session]);

        const answers = await Promise.all(Array.from({ length: parallel }, () => refresh(tokens.refreshToken)));

        expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
        const bodies = answers.map((answer) => answer.json() as Tokens);
        expect(new Set(bodies.map((body) => body.refreshToken)).size).toBe(1);
        expect(new Set(bodies.map((body) => body.token)).size).toBe(1);
        const { rows: after } = await harness.pool.query<{ generation: number; tokens: number }>(
          'SELECT s.generation, (SELECT count(*)::int FROM refresh_tokens t WHERE t.session_id = s.id) AS tokens FROM sessions s WHERE s.id = $1 AND s.ended_at IS NULL',
          [session],
        );
        expect(after).toEqual([{ generation: before[0]!.generation + 1, tokens: earlierRotations + 2 }]);
        // The one successor carries the family on, alone.
        const next = await refresh(bodies[0]!.refreshToken);
        expect(next.statusCode).toBe(200);
        expect(sessionOf(next.json() as Tokens)).toBe(session);
      }),
      { numRuns: 15 },
    );
  });
});
