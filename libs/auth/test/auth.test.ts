import { createHmac, createPrivateKey, createSign, generateKeyPairSync, sign as signWith } from 'node:crypto';
import { unauthorizedReasons } from '@recipes/contracts';
import { createApp, type App } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { expectBearerChallenge } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPlugin, callerOf, generateSigningKeyPair, tokenIssuer } from '../src/index.js';

const keys = generateSigningKeyPair();
const attacker = generateSigningKeyPair();
const issuer = 'recipes-users';
const audience = 'recipes-api';
const userId = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  sub: userId,
  username: 'ada',
  iat: now(),
  exp: now() + 3600,
  iss: issuer,
  aud: audience,
  ...overrides,
});

/** Signs header.payload with Ed25519 by hand, so any header can be forged. */
function ed25519Token(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey = keys.privateKey) {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${signWith(null, Buffer.from(input), createPrivateKey(privateKey)).toString('base64url')}`;
}

const valid = () => ed25519Token({ alg: 'EdDSA', typ: 'JWT' }, claims());

let app: App;
beforeAll(async () => {
  app = await createApp({ title: 'auth test', logger: createLogger({ service: 'test', level: 'silent' }) });
  await app.register(authPlugin, { publicKey: keys.publicKey, issuer, audience });
  app.get('/api/required', { onRequest: app.auth.required }, async (request) => ({ caller: callerOf(request) }));
  app.get('/api/optional', async (request) => ({ caller: request.caller ?? null }));
  // A route of a plugin of its own, that says nothing of tokens: a token sent to it is checked all the same.
  await app.register(async (routes: App) => {
    routes.get('/api/public', async () => ({ ok: true }));
  });
  await app.ready();
});
afterAll(() => app.close());

const call = (url: string, authorization?: string) =>
  app.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

/** Asserts a 401 with `reason` and the challenge that goes with it (docs/api.md §2). */
function expectRefused(response: Awaited<ReturnType<typeof call>>, reason: string) {
  expect(response.statusCode, response.body).toBe(401);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED', reason });
  expectBearerChallenge(response.headers['www-authenticate'], reason);
}

describe('auth plugin', () => {
  it('accepts a valid EdDSA token and exposes the caller', async () => {
    const response = await call('/api/required', `Bearer ${valid()}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ caller: { id: userId, username: 'ada' } });
  });

  it('accepts a token from the issuer the users service signs with', async () => {
    const token = tokenIssuer({ privateKey: keys.privateKey, issuer, audience, ttlSeconds: 60 })({
      id: userId,
      username: 'ada',
    });
    const response = await call('/api/required', `Bearer ${token}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ caller: { id: userId, username: 'ada' } });
  });

  it('refuses a token once it has expired, although it was accepted (and remembered) before', async () => {
    const shortLived = ed25519Token({ alg: 'EdDSA', typ: 'JWT' }, claims({ exp: now() + 1 }));
    expect((await call('/api/required', `Bearer ${shortLived}`)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expectRefused(await call('/api/required', `Bearer ${shortLived}`), 'TOKEN_EXPIRED');
  });

  it('refuses a token with one byte changed after the genuine one was accepted', async () => {
    const token = valid();
    expect((await call('/api/required', `Bearer ${token}`)).statusCode).toBe(200);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    expect((await call('/api/required', `Bearer ${header}.${payload}.${flipped}`)).statusCode).toBe(401);
    expect((await call('/api/required', `Bearer ${token}`)).statusCode).toBe(200);
  });

  it('answers each request as its own token says, whatever other tokens were checked and remembered before', async () => {
    // Remembered checks and the callers read from them are per token: interleaved, none answers for another.
    const subjects = Array.from({ length: 6 }, (_, n) => ({
      sub: `0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a${n}0`,
      username: `user${n}`,
    }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: subjects.length - 1 }), { minLength: 1, maxLength: 20 }),
        async (picks) => {
          for (const pick of picks) {
            const { sub, username } = subjects[pick]!;
            const token = ed25519Token({ alg: 'EdDSA', typ: 'JWT' }, claims({ sub, username, iat: now() - pick }));
            const response = await call('/api/required', `Bearer ${token}`);
            expect(response.json()).toEqual({ caller: { id: sub, username } });
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('requires a token where required, and not where optional', async () => {
    const missing = await call('/api/required');
    expectRefused(missing, 'TOKEN_MISSING');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="recipes"');
    const anonymous = await call('/api/optional');
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json()).toEqual({ caller: null });
  });

  const [header, payload, signature] = valid().split('.') as [string, string, string];
  const hs256WithPublicKey = (() => {
    const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims())}`;
    return `${input}.${createHmac('sha256', keys.publicKey).update(input).digest('base64url')}`;
  })();
  const es256 = (() => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const input = `${b64url({ alg: 'ES256', typ: 'JWT' })}.${b64url(claims())}`;
    return `${input}.${createSign('SHA256').update(input).sign({ key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  })();
  const attackerJwk = createPrivateKey(attacker.privateKey).export({ format: 'jwk' });
  const forged: Record<string, string> = {
    'alg none': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}.`,
    'alg None': `${b64url({ alg: 'None', typ: 'JWT' })}.${b64url(claims())}.`,
    'alg NONE': `${b64url({ alg: 'NONE', typ: 'JWT' })}.${b64url(claims())}.`,
    'HS256 signed with the public key': hs256WithPublicKey,
    'ES256 from another key': es256,
    'tampered payload': `${header}.${b64url(claims({ sub: '0190f5a4-1c2d-7e3f-8a9b-000000000000' }))}.${signature}`,
    'bad signature': `${header}.${payload}.${signature.slice(0, -4)}AAAA`,
    'signed by another key': ed25519Token({ alg: 'EdDSA', typ: 'JWT' }, claims(), attacker.privateKey),
    'embedded jwk header': ed25519Token(
      { alg: 'EdDSA', typ: 'JWT', jwk: { kty: attackerJwk.kty, crv: attackerJwk.crv, x: attackerJwk.x } },
      claims(),
      attacker.privateKey,
    ),
    expired: ed25519Token({ alg: 'EdDSA' }, claims({ iat: now() - 7200, exp: now() - 3600 })),
    'not yet valid': ed25519Token({ alg: 'EdDSA' }, claims({ nbf: now() + 3600 })),
    'wrong issuer': ed25519Token({ alg: 'EdDSA' }, claims({ iss: 'someone-else' })),
    'wrong audience': ed25519Token({ alg: 'EdDSA' }, claims({ aud: 'another-api' })),
    'no expiry': ed25519Token(
      { alg: 'EdDSA' },
      { sub: userId, username: 'ada', iat: now(), iss: issuer, aud: audience },
    ),
    'subject not a user id': ed25519Token({ alg: 'EdDSA' }, claims({ sub: 'admin' })),
    'no username': ed25519Token({ alg: 'EdDSA' }, claims({ username: undefined })),
    garbage: 'abc.def.ghi',
  };

  describe.each(['/api/required', '/api/optional', '/api/public'])('on %s', (url) => {
    it.each(Object.entries(forged))('rejects %s with 401 problem+json and its reason', async (name, token) => {
      const response = await call(url, `Bearer ${token}`);
      // Only a token the users service signed, whole but for its time, is told expired: a client refreshes then.
      expectRefused(response, name === 'expired' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID');
      expect(response.headers['www-authenticate']).toBe(
        `Bearer realm="recipes", error="invalid_token", error_description="${response.json().detail}"`,
      );
    });

    it.each(['', 'Bearer', 'Bearer ', `Basic ${b64url('ada:pw')}`, `bearer${valid()}`])(
      'rejects the header %j as holding no bearer token',
      async (value) => {
        expectRefused(await call(url, value), 'TOKEN_MISSING');
      },
    );

    it.each([`Bearer ${valid()} extra`, `Bearer  ${valid()}`, 'Bearer not-a-jwt'])(
      'rejects the header %j as a token that is not valid',
      async (value) => {
        expectRefused(await call(url, value), 'TOKEN_INVALID');
      },
    );
  });
});

describe('any Authorization header (property)', () => {
  const genuine = valid();
  const expiredToken = ed25519Token({ alg: 'EdDSA' }, claims({ iat: now() - 7200, exp: now() - 3600 }));
  /** One character of `token` changed, wherever: a header, a claim, the signature, a separator. */
  const mutated = (token: string) =>
    fc
      .tuple(fc.nat({ max: token.length - 1 }), fc.constantFrom('A', '_', '.', '-', '=', ' ', '%', 'é'))
      .map(([at, character]) => `${token.slice(0, at)}${character}${token.slice(at + 1)}`);
  /** Header and payload of any JSON, under a signature of any bytes. */
  const anyJwt = fc
    .tuple(fc.jsonValue(), fc.jsonValue(), fc.uint8Array({ maxLength: 80 }))
    .map(([header, payload, signature]) => `${b64url(header)}.${b64url(payload)}.${b64url(Buffer.from(signature))}`);
  const token = fc.oneof(
    fc.constant(genuine),
    fc.constant(expiredToken),
    mutated(genuine),
    anyJwt,
    fc.string({ maxLength: 60 }),
  );
  // What Node lets a client send in a header value: no control character but tab, nothing past one byte.
  const headerText = (text: string) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
  const authorization = fc
    .oneof(
      fc
        .tuple(
          fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', ''),
          fc.constantFrom(' ', '  ', '\t', ''),
          token,
        )
        .map(([scheme, gap, value]) => `${scheme}${gap}${value}`),
      fc.string({ maxLength: 120, unit: 'binary' }),
    )
    .map(headerText);

  it('answers every value with the route itself or a 401 of an enum reason and a well-formed challenge, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/required', '/api/optional', '/api/public'),
        authorization,
        async (url, value) => {
          const response = await call(url, value);
          if (response.statusCode === 200) {
            // Taken: the genuine token (its signature spelt any way that decodes alike), however the scheme is spelt.
            expect(value).toMatch(new RegExp(`^bearer ${genuine.split('.').slice(0, 2).join('\\.')}\\.`, 'i'));
            return;
          }
          expect(response.statusCode, `${JSON.stringify(value)}: ${response.body}`).toBe(401);
          const problem = response.json();
          expect(problem).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
          expect(unauthorizedReasons).toContain(problem.reason);
          expectBearerChallenge(response.headers['www-authenticate'], problem.reason);
        },
      ),
      { numRuns: 500 },
    );
  });
});
