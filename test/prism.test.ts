import { beforeAll, describe, expect, it } from 'vitest';
import { mergedDocument } from '../scripts/openapi.mjs';
import type { RecordedResponse } from './support/conformance.js';
import { prismChecker } from './support/prism.js';

/**
 * The third-party check the system tests run on their traffic (test/support/prism.ts): Stoplight Prism's
 * validators over recorded request/response pairs, against the published document. Shown to pass what the
 * document says and to report each kind of disagreement, the ones found by an integrator first.
 */
const RECIPE = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';
const USER = { id: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5c', username: 'ada_lovelace', avatarUrl: null };
const json = 'application/json; charset=utf-8';
const problem = (status: number, code: string) =>
  JSON.stringify({ type: 'about:blank', title: 'x', status, code, detail: 'x', instance: '/x', requestId: 'r' });

/**
 * A recorded pair: a request with `body` (JSON) and a token, answered `status` with `answer` (a `201` with a
 * `Location`, unless null).
 */
function pair({
  method = 'POST',
  url,
  status,
  body,
  answer = '',
  token = true,
  location = status === 201 ? '/api/created/1' : undefined,
}: {
  method?: string;
  url: string;
  status: number;
  body?: unknown;
  answer?: unknown;
  token?: boolean;
  location?: string | null;
}): RecordedResponse {
  const text = body === undefined ? '' : JSON.stringify(body);
  const problemStatus = status >= 400;
  return {
    method,
    url,
    path: url.split('?')[0],
    status,
    contentType: answer === '' ? undefined : problemStatus ? 'application/problem+json; charset=utf-8' : json,
    body: typeof answer === 'string' ? answer : JSON.stringify(answer),
    complete: true,
    headers: {
      'x-request-id': 'r',
      ...(location === undefined || location === null ? {} : { location }),
      ...(answer === '' ? {} : { 'content-type': problemStatus ? 'application/problem+json; charset=utf-8' : json }),
    },
    request: {
      headers: {
        ...(token ? { authorization: 'Bearer recorded' } : {}),
        ...(text === ''
          ? {}
          : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }),
      },
      body: text,
      utf8: true,
    },
  };
}

describe('Prism’s check of recorded traffic against the published document', () => {
  let check: (record: RecordedResponse) => string[];
  beforeAll(async () => {
    ({ check } = await prismChecker(await mergedDocument()));
  }, 60_000);

  const session = { user: USER, token: 'x.y.z', refreshToken: 'r'.repeat(43), expiresIn: 900 };
  const accepted = (mismatches: string[]) =>
    mismatches.filter((line) => line.includes('accepted, but the document forbids it'));

  it('passes a request and answer the document describes', () => {
    expect(
      check(
        pair({
          url: '/api/auth/register',
          status: 201,
          body: { username: 'ada_lovelace', password: 'correct horse' },
          answer: session,
          token: false,
        }),
      ),
    ).toEqual([]);
    expect(
      check(
        pair({
          url: '/api/auth/register',
          status: 400,
          body: { username: 'ada_lovelace', password: 'abc' },
          answer: problem(400, 'VALIDATION_ERROR'),
          token: false,
        }),
      ),
    ).toEqual([]);
  });

  it(
    'reports what the API accepts and the document forbids: a password out of 8-128, ' +
      'a page of 0, a comment over 2,000 characters or blank, a URL that is not http(s)',
    () => {
      expect(
        accepted(
          check(
            pair({
              url: '/api/auth/register',
              status: 201,
              body: { username: 'ada_lovelace', password: 'abc' },
              answer: session,
              token: false,
            }),
          ),
        ),
      ).toHaveLength(1);
      expect(
        accepted(
          check(
            pair({
              url: '/api/auth/register',
              status: 201,
              body: { username: 'ada_lovelace', password: 'x'.repeat(129) },
              answer: session,
              token: false,
            }),
          ),
        ),
      ).toHaveLength(1);
      expect(
        accepted(
          check(
            pair({
              url: '/api/auth/register',
              status: 201,
              body: { username: 'ada_lovelace', password: 'correct horse', avatarUrl: 'ftp://x/a.png' },
              answer: session,
              token: false,
            }),
          ),
        ),
      ).toHaveLength(1);
      const page = {
        comments: [],
        total: 0,
        pagination: { page: 1, limit: 50, total: 0, totalPages: 0, nextCursor: null },
      };
      expect(
        accepted(
          check(pair({ method: 'GET', url: `/api/recipes/${RECIPE}/comments?page=0`, status: 200, answer: page })),
        ),
      ).toHaveLength(1);
      expect(
        accepted(
          check(pair({ method: 'GET', url: `/api/recipes/${RECIPE}/comments?limit=00`, status: 200, answer: page })),
        ),
      ).toHaveLength(1);
      expect(
        check(pair({ method: 'GET', url: `/api/recipes/${RECIPE}/comments?page=007`, status: 200, answer: page })),
      ).toEqual([]);
      for (const content of ['x'.repeat(2001), '   ', 'a\u0007b', '\udc00\ud800']) {
        expect(
          accepted(check(pair({ url: `/api/recipes/${RECIPE}/comments`, status: 201, body: { content }, answer: '' }))),
        ).toHaveLength(1);
      }
    },
  );

  it('passes what the API accepts within the rules: trimmed text, 2,000 characters, tab and line breaks', () => {
    const comment = {
      id: RECIPE,
      content: 'x',
      createdAt: '2026-11-27T10:00:00.000Z',
      editedAt: null,
      targetType: 'recipe',
      targetId: RECIPE,
      parentId: null,
      replyCount: 0,
      author: USER,
    };
    const added = { message: 'Comment added successfully', comment };
    for (const content of ['  hello  ', 'x'.repeat(2000), ' a\tb\nc\r\n ', '😀'.repeat(2000)]) {
      expect(
        check(pair({ url: `/api/recipes/${RECIPE}/comments`, status: 201, body: { content }, answer: added })),
      ).toEqual([]);
    }
  });

  it('reports a body sent to an operation that declares none, and takes read-all without one', () => {
    expect(
      accepted(
        check(
          pair({
            method: 'PUT',
            url: `/api/recipes/${RECIPE}/favorite`,
            status: 200,
            body: {},
            answer: { favorited: true, favoriteCount: 1 },
          }),
        ),
      ),
    ).toHaveLength(1);
    expect(
      check(
        pair({
          method: 'PUT',
          url: `/api/recipes/${RECIPE}/favorite`,
          status: 400,
          body: {},
          answer: problem(400, 'VALIDATION_ERROR'),
        }),
      ),
    ).toEqual([]);
    expect(
      check(pair({ url: '/api/notifications/read-all', status: 200, answer: { message: 'ok', updated: 0 } })),
    ).toEqual([]);
  });

  it('takes a refusal of a body labelled JSON that is none', () => {
    const broken = pair({
      url: `/api/recipes/${RECIPE}/comments`,
      status: 400,
      body: { content: 'x' },
      answer: problem(400, 'VALIDATION_ERROR'),
    });
    for (const text of ['{', '{"content":"x",}', '']) {
      expect(
        check({
          ...broken,
          request: {
            ...broken.request!,
            body: text,
            headers: { ...broken.request!.headers, 'content-length': String(text.length) },
          },
        }),
      ).toEqual([]);
    }
  });

  it('reports what the API refuses and the document allows', () => {
    const refused = check(
      pair({
        url: '/api/auth/register',
        status: 400,
        body: { username: 'ada_lovelace', password: 'correct horse' },
        answer: problem(400, 'VALIDATION_ERROR'),
        token: false,
      }),
    );
    expect(refused).toEqual([expect.stringContaining('refused, but the document allows it')]);
  });

  it('takes a cursor refused as not issued by the list, a rule the document says in words', () => {
    const refusal = JSON.stringify({
      ...JSON.parse(problem(400, 'VALIDATION_ERROR')),
      errors: [{ path: 'cursor', message: 'must be a cursor from a previous answer of this list' }],
    });
    expect(
      check(
        pair({ method: 'GET', url: `/api/recipes/${RECIPE}/comments?cursor=garbage`, status: 400, answer: refusal }),
      ),
    ).toEqual([]);
    const other = JSON.stringify({
      ...JSON.parse(problem(400, 'VALIDATION_ERROR')),
      errors: [{ path: 'page', message: 'must be a positive integer' }],
    });
    expect(
      check(pair({ method: 'GET', url: `/api/recipes/${RECIPE}/comments?page=2`, status: 400, answer: other })),
    ).toEqual([expect.stringContaining('refused, but the document allows it')]);
  });

  it('reports an answer the document does not describe: a status, a body, a 201 without its Location', () => {
    const created = {
      url: '/api/auth/register',
      status: 201,
      body: { username: 'ada_lovelace', password: 'correct horse' },
      answer: session,
      token: false,
    };
    expect(check(pair(created))).toEqual([]);
    expect(check(pair({ ...created, location: null }))).toEqual([expect.stringContaining('does not describe')]);
    expect(check(pair({ method: 'GET', url: '/api/users/me', status: 418, answer: problem(418, 'TEAPOT') }))).toEqual([
      expect.stringContaining('does not describe'),
    ]);
    expect(check(pair({ method: 'GET', url: '/api/users/me', status: 200, answer: { user: { id: 'nope' } } }))).toEqual(
      [expect.stringContaining('does not describe')],
    );
  });
});
