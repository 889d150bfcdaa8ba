import { unauthorizedReasons } from '@recipes/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectBearerChallenge,
  expectUnauthorized,
  generousLimits,
  type Registered,
  type UsersHarness,
  usersHarness,
} from '../support.js';

/**
 * The 401s of the users service (docs/api.md §2): each `reason` from a real request, and any `Authorization`
 * header answered either as the route answers or with a 401 of an enum reason and a well-formed challenge.
 */
let harness: UsersHarness;
/** A token of each kind, of accounts of this file. */
let tokens: { live: string; ended: string; deleted: string; expired: string; legacyOfDeleted: string };
let ada: Registered;

const now = () => Math.floor(Date.now() / 1000);
const sessionOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;

beforeAll(async () => {
  harness = await usersHarness(generousLimits);
  ada = await harness.registered('why_ada');
  const bob = await harness.registered('why_bob');
  const cat = await harness.registered('why_cat');
  await harness.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(bob.token) });
  const deleted = await harness.app.inject({
    method: 'DELETE',
    url: '/api/users/me',
    payload: { password: 'password123' },
    headers: bearer(cat.token),
  });
  expect(deleted.statusCode).toBe(202);
  tokens = {
    live: ada.token,
    ended: bob.token,
    deleted: cat.token,
    // Signed by this service's key, of a live session, two hours ago: past its expiry.
    expired: harness.tokenFor({
      id: ada.user.id,
      username: 'why_ada',
      sessionId: sessionOf(ada.token),
      issuedAt: now() - 7200,
    }),
    legacyOfDeleted: harness.tokenFor({ id: cat.user.id, username: 'why_cat' }),
  };
});
afterAll(() => harness.close());

const get = (url: string, authorization?: string) =>
  harness.app.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

describe('each reason of a 401, from a real request', () => {
  it('TOKEN_MISSING: no token where one is required, or a header with no bearer token in it', async () => {
    expectUnauthorized(await get('/api/users/me'), 'TOKEN_MISSING');
    expectUnauthorized(await get('/api/users/me', 'Basic d2h5X2FkYTpwYXNzd29yZDEyMw=='), 'TOKEN_MISSING');
  });

  it('TOKEN_INVALID: a token that is not one the service signed', async () => {
    const [header, payload] = tokens.live.split('.');
    expectUnauthorized(await get('/api/users/me', `Bearer ${header}.${payload}.AAAA`), 'TOKEN_INVALID');
    expectUnauthorized(await get('/api/auth/sessions', 'Bearer not-a-jwt'), 'TOKEN_INVALID');
  });

  it('TOKEN_EXPIRED: a well-signed token past its expiry; the session lives on, so a refresh works', async () => {
    const refused = expectUnauthorized(await get('/api/users/me', `Bearer ${tokens.expired}`), 'TOKEN_EXPIRED');
    expect(refused.detail).toBe('The token has expired');
    expect((await get('/api/users/me', `Bearer ${tokens.live}`)).statusCode).toBe(200);
  });

  it('SESSION_ENDED: a token of a session ended by a logout, on any route, a public one too', async () => {
    expectUnauthorized(await get('/api/users/me', `Bearer ${tokens.ended}`), 'SESSION_ENDED');
    expectUnauthorized(await get(`/api/users/${ada.user.id}`, `Bearer ${tokens.ended}`), 'SESSION_ENDED');
  });

  it('ACCOUNT_DELETED: a token of a deleted account, of a session or from before sessions', async () => {
    expectUnauthorized(await get('/api/users/me', `Bearer ${tokens.deleted}`), 'ACCOUNT_DELETED');
    expectUnauthorized(await get('/api/users/me', `Bearer ${tokens.legacyOfDeleted}`), 'ACCOUNT_DELETED');
  });
});

describe('any Authorization header (property)', () => {
  const kinds = ['live', 'ended', 'deleted', 'expired'] as const;
  /** What each token gets on a route that reads the caller's account. */
  const expected = { live: 200, ended: 'SESSION_ENDED', deleted: 'ACCOUNT_DELETED', expired: 'TOKEN_EXPIRED' };
  const text = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

  it('answers a known token as its kind says, and anything else with 200 or a 401 of an enum reason', async () => {
    const header = fc.oneof(
      fc
        .tuple(fc.constantFrom(...kinds), fc.constantFrom('Bearer ', 'bearer ', 'BEARER '))
        .map(([kind, scheme]) => ({ kind, value: `${scheme}${tokens[kind]}` })),
      fc
        .tuple(fc.constantFrom(...kinds), fc.nat(), fc.constantFrom('A', '.', ' ', '-', '_'))
        .map(([kind, at, character]) => {
          const token = tokens[kind];
          const i = at % token.length;
          return { kind: undefined, value: `Bearer ${token.slice(0, i)}${character}${token.slice(i + 1)}` };
        }),
      fc.string({ maxLength: 100, unit: 'binary' }).map((value) => ({ kind: undefined, value: text(value) })),
      fc.string({ maxLength: 100 }).map((value) => ({ kind: undefined, value: text(`Bearer ${value}`) })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/users/me', '/api/auth/sessions', '/api/users/why_ada'),
        header,
        async (url, { kind, value }) => {
          const response = await get(url, value);
          if (kind !== undefined) {
            const outcome = expected[kind];
            if (outcome === 200) expect(response.statusCode, response.body).toBe(200);
            else expectUnauthorized(response, outcome);
            return;
          }
          if (response.statusCode === 200) return;
          expect(response.statusCode, `${JSON.stringify(value)}: ${response.body}`).toBe(401);
          const problem = response.json();
          expect(problem).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
          expect(unauthorizedReasons).toContain(problem.reason);
          expectBearerChallenge(response.headers['www-authenticate'], problem.reason);
        },
      ),
      { numRuns: 300 },
    );
  });
});
