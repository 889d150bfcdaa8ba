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
  (
    await harness.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'racer', password: 'password123' },
    })
  ).json() as Tokens;
const refresh = (refreshToken: string) =>
  harness.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } });
const sessionOf = (tokens: Tokens) =>
  JSON.parse(Buffer.from(tokens.token.split('.')[1]!, 'base64url').toString()).sid as string;

describe('parallel refreshes of one token', () => {
  it('give one successor, the same answer to each, and never a second live family', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 0, max: 3 }),
        async (parallel, earlierRotations) => {
          let tokens = await login();
          const session = sessionOf(tokens);
          for (let i = 0; i < earlierRotations; i += 1) tokens = (await refresh(tokens.refreshToken)).json() as Tokens;
          const { rows: before } = await harness.pool.query<{ generation: number }>(
            'SELECT generation FROM sessions WHERE id = $1',
            [session],
          );

          const answers = await Promise.all(Array.from({ length: parallel }, () => refresh(tokens.refreshToken)));

          expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
          const bodies = answers.map((answer) => answer.json() as Tokens);
          expect(new Set(bodies.map((body) => body.refreshToken)).size).toBe(1);
          expect(new Set(bodies.map((body) => body.token)).size).toBe(1);
          const { rows: after } = await harness.pool.query<{ generation: number; tokens: number }>(
            'SELECT s.generation, (SELECT count(*)::int FROM refresh_tokens t WHERE t.session_id ' +
              '= s.id) AS tokens FROM sessions s WHERE s.id = $1 AND s.ended_at IS NULL',
            [session],
          );
          expect(after).toEqual([{ generation: before[0]!.generation + 1, tokens: earlierRotations + 2 }]);
          // The one successor carries the family on, alone.
          const next = await refresh(bodies[0]!.refreshToken);
          expect(next.statusCode).toBe(200);
          expect(sessionOf(next.json() as Tokens)).toBe(session);
        },
      ),
      { numRuns: 15 },
    );
  });
});

/**
 * A session as the model knows it: whether it lives, its latest tokens, and the answer each refresh token it used got.
 */
interface ModelSession {
  id: string;
  live: boolean;
  latest: Tokens;
  answered: Map<string, Tokens>;
}

type Step =
  | { kind: 'login' }
  | { kind: 'refresh'; session: number }
  | { kind: 'a used token again within the grace'; session: number; token: number }
  | { kind: 'a used token again after the grace'; session: number; token: number }
  | { kind: 'logout'; session: number }
  | { kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'login' as const }),
  fc.constant({ kind: 'restart' as const }),
  ...(['refresh', 'logout'] as const).map((kind) => fc.nat({ max: 3 }).map((session) => ({ kind, session }))),
  ...(['a used token again within the grace', 'a used token again after the grace'] as const).map((kind) =>
    fc.record({ session: fc.nat({ max: 3 }), token: fc.nat({ max: 5 }) }).map((at) => ({ kind, ...at })),
  ),
);

describe('any sequence of logins, refreshes, replays, logouts and restarts', () => {
  it('keeps live exactly the sessions the model keeps, their tokens taken and every ended one’s refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        let app = harness.app;
        const sessions: ModelSession[] = [];
        const call = (method: 'GET' | 'POST', url: string, options: { payload?: object; token?: string } = {}) =>
          app.inject({
            method,
            url,
            ...(options.payload ? { payload: options.payload } : {}),
            headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
          });
        const present = (refreshToken: string) => call('POST', '/api/auth/refresh', { payload: { refreshToken } });

        for (const each of steps) {
          const target = 'session' in each ? sessions[each.session % Math.max(sessions.length, 1)] : undefined;
          const used = target && 'token' in each ? [...target.answered.keys()] : [];
          const usedToken = 'token' in each ? used[each.token % Math.max(used.length, 1)] : undefined;
          if (each.kind === 'login') {
            const tokens = (
              await call('POST', '/api/auth/login', { payload: { username: 'racer', password: 'password123' } })
            ).json() as Tokens;
            sessions.push({ id: sessionOf(tokens), live: true, latest: tokens, answered: new Map() });
          } else if (each.kind === 'restart') {
            app = await harness.anotherApp({});
          } else if (!target) {
            continue;
          } else if (each.kind === 'refresh') {
            const response = await present(target.latest.refreshToken);
            expect(response.statusCode).toBe(target.live ? 200 : 401);
            if (target.live) {
              target.answered.set(target.latest.refreshToken, response.json() as Tokens);
              target.latest = response.json() as Tokens;
            }
          } else if (each.kind === 'a used token again within the grace') {
            if (usedToken === undefined) continue;
            const response = await present(usedToken);
            // Within 10 s of its first use: the answer it got then, while the session lives.
            if (target.live) expect(response.json()).toEqual(target.answered.get(usedToken));
            else expect(response.statusCode).toBe(401);
          } else if (each.kind === 'a used token again after the grace') {
            if (usedToken === undefined) continue;
            await harness.pool.query(
              `UPDATE refresh_tokens SET issued_at = issued_at - interval '11 s' WHERE session_id = $1`,
              [target.id],
            );
            expect((await present(usedToken)).statusCode).toBe(401);
            target.live = false;
          } else {
            expect((await call('POST', '/api/auth/logout', { token: target.latest.token })).statusCode).toBe(
              target.live ? 200 : 401,
            );
            target.live = false;
          }
        }

        for (const session of sessions) {
          expect(
            (await call('GET', '/api/users/me', { token: session.latest.token })).statusCode,
            `session ${session.id}`,
          ).toBe(session.live ? 200 : 401);
          expect((await present(session.latest.refreshToken)).statusCode).toBe(session.live ? 200 : 401);
        }
        const witness = sessions.find((session) => session.live);
        if (witness) {
          const listed = (await call('GET', '/api/auth/sessions', { token: witness.latest.token })).json().sessions as {
            id: string;
          }[];
          const mine = new Set(sessions.map((session) => session.id));
          expect(
            listed
              .filter((session) => mine.has(session.id))
              .map((session) => session.id)
              .sort(),
          ).toEqual(
            sessions
              .filter((session) => session.live)
              .map((session) => session.id)
              .sort(),
          );
        }
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
