import { generateSigningKeyPair, TOKEN_ALGORITHM } from '@recipes/auth';
import { createEvent, newId, userCreated } from '@recipes/contracts';
import { createSigner } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  expectProblem,
  generousLimits,
  type Kind,
  kinds,
} from '../support.js';
import { commentCalls } from './comment-calls.js';

let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

const { unique, post, get, commented } = commentCalls(() => harness);

describe('content rules', () => {
  it.each([
    ['empty', ''],
    ['only white space', ' \n\t '],
    ['2001 characters', 'x'.repeat(2001)],
    ['2001 emoji', '📷'.repeat(2001)],
    ['a NUL', 'a\u0000b'],
    ['a bell', 'a\u0007b'],
    ['an escape', 'a\u001bb'],
    ['a form feed', 'a\fb'],
    ['a vertical tab', 'a\vb'],
    ['a lone surrogate', 'a\ud800b'],
    ['a number', 42],
    ['null', null],
    ['an object', { text: 'hi' }],
  ])('rejects %s with 400 and stores nothing', async (_case, content) => {
    const target = harness.target('recipe');
    const { token } = harness.register(unique('Strict'));
    const problem = expectProblem(await post('recipe', target, { content }, bearer(token)), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors).toEqual([{ path: 'content', message: expect.any(String) }]);
    expect((await get('recipe', target)).json().total).toBe(0);
  });

  it('rejects a missing content and a body that is not JSON', async () => {
    const { token } = harness.register(unique('Formless'));
    const target = harness.target('recipe');
    expectProblem(await post('recipe', target, {}, bearer(token)), 400);
    const notJson = await harness.app.inject({
      method: 'POST',
      url: commentsUrl('recipe', target),
      payload: '{"content":',
      headers: { ...bearer(token), 'content-type': 'application/json' },
    });
    expectProblem(notJson, 400);
    const text = await harness.app.inject({
      method: 'POST',
      url: commentsUrl('recipe', target),
      payload: 'content=hi',
      headers: { ...bearer(token), 'content-type': 'text/plain' },
    });
    expectProblem(text, 415);
    expectProblem(await post('recipe', target, { content: 'x'.repeat(70_000) }, bearer(token)), 413);
  });

  it.each([
    ['2000 characters', 'x'.repeat(2000), 'x'.repeat(2000)],
    ['2000 emoji (4000 UTF-16 units)', '📷'.repeat(2000), '📷'.repeat(2000)],
    ['2000 characters inside white space', `  ${'y'.repeat(2000)}  \n`, 'y'.repeat(2000)],
    ['one character', 'a', 'a'],
    ['tabs and line breaks inside', ' a\tb\r\nc ', 'a\tb\r\nc'],
    ['other scripts', 'Schön — 写真 📷', 'Schön — 写真 📷'],
  ])('accepts %s', async (_case, content, stored) => {
    const { token } = harness.register(unique('Lenient'));
    expect((await commented('recipe', harness.target('recipe'), token, content)).content).toBe(stored);
  });

  it('ignores unknown body fields', async () => {
    const { token } = harness.register(unique('Extra'));
    const response = await post(
      'post',
      harness.target('post'),
      { content: 'hi', author: 'someone else', id: newId() },
      bearer(token),
    );
    expect(response.statusCode).toBe(201);
  });
});

describe('authentication', () => {
  const forge = (claims: Record<string, unknown>, key = harness.keys.privateKey) =>
    createSigner({ key, algorithm: TOKEN_ALGORITHM })({
      iss: harness.config.JWT_ISSUER,
      aud: harness.config.JWT_AUDIENCE,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 600,
      ...claims,
    });
  const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('needs a valid token, checked before the body and the target', async () => {
    const { user } = harness.register(unique('Holder'));
    const claims = { sub: user.id, username: user.username };
    const tokens = {
      garbage: 'not-a-token',
      expired: forge({
        ...claims,
        iat: Math.floor(Date.now() / 1000) - 7200,
        exp: Math.floor(Date.now() / 1000) - 3600,
      }),
      'wrong audience': forge({ ...claims, aud: 'someone-else' }),
      'signed by another key': forge(claims, generateSigningKeyPair().privateKey),
      'alg none': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, iss: harness.config.JWT_ISSUER, aud: harness.config.JWT_AUDIENCE })}.`,
    };
    const target = harness.target('recipe');
    for (const kind of kinds) {
      expectProblem(await post(kind, target, { content: 'hi' }), 401);
      expectProblem(await post(kind, newId(), { content: '' }), 401);
      expectProblem(await post(kind, 'not-a-uuid', { content: 5 }), 401);
      for (const token of Object.values(tokens))
        expectProblem(await post(kind, target, { content: 'hi' }, bearer(token)), 401);
    }
    expect((await post('recipe', target, { content: 'hi' }, bearer(forge(claims)))).statusCode).toBe(201);
  });

  it('refuses a well-signed token of a user the users service does not know', async () => {
    const token = forge({ sub: newId(), username: 'ghost_user' });
    expect(
      expectProblem(await post('recipe', harness.target('recipe'), { content: 'boo' }, bearer(token)), 401).code,
    ).toBe('UNAUTHORIZED');
  });

  it('validates the body before looking for the target: 400, then 404', async () => {
    const { token } = harness.register(unique('Orderly'));
    expectProblem(await post('recipe', newId(), { content: '' }, bearer(token)), 400);
    expectProblem(await post('collection', 'not-a-uuid', { content: '\u0000' }, bearer(token)), 400);
    expectProblem(await post('collection', 'not-a-uuid', { content: 'fine' }, bearer(token)), 404);
  });

  it('lists comments without a token', async () => {
    expect((await get('collection', harness.target('collection'))).statusCode).toBe(200);
  });
});

describe('mentions', () => {
  async function mentionedIn(content: string, author = harness.register(unique('Speaker'))) {
    const comment = await commented('recipe', harness.target('recipe'), author.token, content);
    return (await harness.mentionRows('recipe', comment.id)).map((row) => row.mentioned_user_id);
  }

  it('ignores the author, unknown names and repeats of one user in any case', async () => {
    const author = harness.register(unique('Self'));
    const ada = harness.register(unique('Ada')).user;
    const content = `@${author.user.username} @nobody_like_this @${ada.username} @${ada.username.toUpperCase()} @${ada.username.toLowerCase()}`;
    expect(await mentionedIn(content, author)).toEqual([ada.id]);
  });

  it('mentions nobody in an email address, or in a name of 31 characters', async () => {
    const ada = harness.register(unique('Ada')).user;
    expect(
      await mentionedIn(`mail ${ada.username}@example.com or x@${ada.username}, @${ada.username}${'x'.repeat(31)}`),
    ).toEqual([]);
  });

  it('mentions the first ten users who exist, in text order, not counting unknown names or the author', async () => {
    const author = harness.register(unique('Popular'));
    const users = Array.from({ length: 12 }, () => harness.register(unique('Fan')).user);
    const content = [`@${author.user.username}`, '@unknown_fan', ...users.map((user) => `@${user.username}`)].join(' ');
    const requestId = `ten-${newId()}`;
    const comment = await commented('recipe', harness.target('recipe'), author.token, content, requestId);
    const rows = await harness.mentionRows('recipe', comment.id);
    expect(rows.map((row) => row.mentioned_user_id).sort()).toEqual(
      users
        .slice(0, 10)
        .map((user) => user.id)
        .sort(),
    );
    expect(await harness.outboxEvents(requestId, 'comment.mention.created')).toHaveLength(10);
  });

  it('finds a user named after more unknown names than one look-up takes', async () => {
    const ada = harness.register(unique('Patient'));
    const unknown = Array.from({ length: 60 }, (_, index) => `@nobody_${index}`).join(' ');
    expect(await mentionedIn(`${unknown} @${ada.user.username}`)).toEqual([ada.user.id]);
  });

  it('resolves a user it heard of through user.created without asking the users service', async () => {
    const known = { id: newId(), username: unique('Evented'), avatarUrl: 'https://cdn.example.com/a.png', revision: 0 };
    await harness.deliver(createEvent(userCreated, known, { producer: 'users', correlationId: 'c' }));
    expect(await mentionedIn(`hi @${known.username}`)).toEqual([known.id]);
  });
});

describe('rate limit', () => {
  it('limits comments per caller across every kind of target, with Retry-After', async () => {
    const limited = await harness.anotherApp({ COMMENT_LIMIT_PER_MINUTE: '3' });
    const send = (kind: Kind, token: string) =>
      limited.inject({
        method: 'POST',
        url: commentsUrl(kind, harness.target(kind)),
        payload: { content: 'again' },
        headers: bearer(token),
      });
    const eager = harness.register(unique('Eager'));
    const statuses = [];
    for (const kind of ['recipe', 'post', 'collection', 'recipe'] as const)
      statuses.push((await send(kind, eager.token)).statusCode);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await send('post', eager.token);
    expect(expectProblem(refused, 429).code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    // Another caller is not affected, and reading is not limited.
    expect((await send('recipe', harness.register(unique('Calm')).token)).statusCode).toBe(201);
    expect(
      (await limited.inject({ method: 'GET', url: commentsUrl('recipe', harness.target('recipe')) })).statusCode,
    ).toBe(200);
  });
});

describe('API document', () => {
  it('describes the fourteen operations, and nothing else', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.entries(document.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      kinds
        .flatMap((kind) => [
          `GET /api/${kind}s/{id}/comments`,
          `POST /api/${kind}s/{id}/comments`,
          `PATCH /api/${kind}s/{id}/comments/{commentId}`,
          `DELETE /api/${kind}s/{id}/comments/{commentId}`,
        ])
        .concat('GET /api/comments/{id}', 'GET /api/comments/{id}/replies')
        .sort(),
    );
  });
});
