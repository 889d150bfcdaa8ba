import { problemCodes, problemSchema, unauthorizedReasons, unknownCaller } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  bearerChallenge,
  codeFor,
  createApp,
  errorCodes,
  unauthorized,
  wrongCredentials,
} from '../src/index.js';

/** Every 401, whoever answers it, says why in `reason` and carries its `WWW-Authenticate` challenge (docs/api.md §2). */
let app: App;
beforeAll(async () => {
  app = await createApp({ title: '401 test', logger: createLogger({ service: 'test', level: 'silent' }) });
  for (const reason of unauthorizedReasons) {
    app.get(`/api/refused/${reason}`, async () => {
      throw unauthorized(reason);
    });
  }
  app.post('/api/login', async () => {
    throw wrongCredentials('Invalid username or password');
  });
  app.get('/api/deleted', async () => {
    throw unknownCaller();
  });
  // A 401 from something that knows nothing of reasons, as a plugin might throw it.
  app.get('/api/plain', async () => {
    throw Object.assign(new Error('Not signed in'), { statusCode: 401 });
  });
  await app.ready();
});
afterAll(() => app.close());

async function refused(method: 'GET' | 'POST', url: string) {
  const response = await app.inject({ method, url });
  expect(response.statusCode).toBe(401);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return { problem: problemSchema.parse(response.json()), challenge: response.headers['www-authenticate'] };
}

describe('a 401', () => {
  it.each(unauthorizedReasons.filter((reason) => reason !== 'TOKEN_MISSING'))(
    'of %s says so, and challenges with invalid_token and its detail',
    async (reason) => {
      const { problem, challenge } = await refused('GET', `/api/refused/${reason}`);
      expect(problem).toMatchObject({ code: 'UNAUTHORIZED', reason });
      expect(challenge).toBe(`Bearer realm="recipes", error="invalid_token", error_description="${problem.detail}"`);
    },
  );

  it('of TOKEN_MISSING challenges with the realm alone, as no token was sent', async () => {
    const { problem, challenge } = await refused('GET', '/api/refused/TOKEN_MISSING');
    expect(problem).toMatchObject({ code: 'UNAUTHORIZED', reason: 'TOKEN_MISSING' });
    expect(challenge).toBe('Bearer realm="recipes"');
  });

  it('for a wrong username or password has no reason, and the plain challenge', async () => {
    const { problem, challenge } = await refused('POST', '/api/login');
    expect(problem.code).toBe('UNAUTHORIZED');
    expect(problem).not.toHaveProperty('reason');
    expect(challenge).toBe('Bearer realm="recipes"');
  });

  it('for a well-signed token of an account nobody has is ACCOUNT_DELETED', async () => {
    const { problem, challenge } = await refused('GET', '/api/deleted');
    expect(problem).toMatchObject({ code: 'UNAUTHORIZED', reason: 'ACCOUNT_DELETED' });
    expect(challenge).toMatch(/^Bearer realm="recipes", error="invalid_token", error_description="[^"]+"$/);
  });

  it('from anywhere else still carries the challenge', async () => {
    const { problem, challenge } = await refused('GET', '/api/plain');
    expect(problem).not.toHaveProperty('reason');
    expect(challenge).toBe('Bearer realm="recipes"');
  });
});

describe('bearerChallenge', () => {
  it('keeps only what RFC 6750 §3 allows in a description: no quote, no backslash, nothing past ASCII', () => {
    expect(bearerChallenge('TOKEN_INVALID', 'A "bad" \\ token — café\n')).toBe(
      'Bearer realm="recipes", error="invalid_token", error_description="A bad  token  caf"',
    );
  });
});

describe('the codes', () => {
  it('are exactly the enum of the Problem schema: one per status, and BAD_REQUEST for any other client error', () => {
    expect(new Set(problemCodes)).toEqual(new Set([...Object.values(errorCodes), 'BAD_REQUEST']));
    expect(problemCodes).toContain(codeFor(431));
    expect(problemCodes).toContain(codeFor(502));
  });
});
