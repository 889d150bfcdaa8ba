import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { problemCodes, unauthorizedReasons } from '@recipes/contracts';
import { codeFor, errorCodes } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintDocument, mergedDocument, writeDocument } from '../scripts/openapi.mjs';

/**
 * The gateway's merged OpenAPI document as `npm run lint:openapi` composes it (scripts/openapi.mjs, from the
 * built services), against Redocly's recommended rules (redocly.yaml), and what the document promises.
 * Needs the build, as the other system tests do.
 */
type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};

let document: Record<string, any>;
let dir: string;
const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method,
      path,
      operation,
    })),
  );

/** Redocly's problems with `candidate`, as `ruleId@pointer`. */
function lint(candidate: object, name: string): string[] {
  return lintDocument(writeDocument(candidate, join(dir, `${name}.json`))).map(
    (problem) => `${problem.severity} ${problem.ruleId}@${problem.pointer}`,
  );
}

beforeAll(async () => {
  document = await mergedDocument();
  // Inside the repository: Redocly resolves nothing outside the document, but the folder is git-ignored.
  mkdirSync('generated', { recursive: true });
  dir = mkdtempSync(join(process.cwd(), 'generated', 'lint-'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('redocly lint (recommended rules)', () => {
  it('accepts the merged document with no error and no warning', () => {
    expect(lint(document, 'merged')).toEqual([]);
  }, 30_000);

  it('reports each defect the document once had, so the check can fail', () => {
    const broken = structuredClone(document);
    const register = broken.paths['/api/auth/register'].post as Operation;
    delete register.operationId;
    delete register.security;
    (broken.paths['/api/auth/login'].post as Operation).operationId = 'getUser';
    broken.servers = [];
    delete broken.info.license;
    const problems = lint(broken, 'broken');
    expect(problems.map((problem) => problem.split('@')[0]).sort()).toEqual([
      'error no-empty-servers',
      'error operation-operationId-unique',
      'error security-defined',
      'warn info-license',
      'warn operation-operationId',
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error security-defined@#\/paths\/~1api~1auth~1register\/post/),
        expect.stringMatching(/^warn operation-operationId@#\/paths\/~1api~1auth~1register\/post/),
        expect.stringMatching(/^error operation-operationId-unique@#\/paths\/~1api~1users~1\{id\}\/get/),
      ]),
    );
  }, 30_000);
});

describe('the merged document', () => {
  it('names every operation with a readable operationId, unique across services', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const byKey = Object.fromEntries(operations().map(({ key, operation }) => [key, operation.operationId]));
    expect(byKey).toMatchObject({
      'GET /api/recipes/{id}/comments': 'listRecipeComments',
      'POST /api/recipes/{id}/comments': 'createRecipeComment',
      'PATCH /api/recipes/{id}/comments/{commentId}': 'updateRecipeComment',
      'DELETE /api/recipes/{id}/comments/{commentId}': 'deleteRecipeComment',
      'POST /api/auth/login': 'login',
      'POST /api/auth/register': 'register',
      'GET /api/notifications/unread-count': 'getNotificationUnreadCount',
    });
  });

  it('says of every operation whether it takes a token: none ([]), optional ([] or bearer), or required', () => {
    for (const { key, operation } of operations()) expect(operation.security, key).toBeInstanceOf(Array);
    const security = (key: string) => operations().find((operation) => operation.key === key)!.operation.security;
    expect(security('POST /api/auth/login')).toEqual([]);
    expect(security('GET /api/recipes/{id}/comments')).toEqual([]);
    expect(security('GET /api/recipes/{id}')).toEqual([{}, { bearerAuth: [] }]);
    expect(security('POST /api/recipes/{id}/comments')).toEqual([{ bearerAuth: [] }]);
  });

  it('has a license and the gateway as its server', () => {
    expect(document.info.license).toMatchObject({ name: expect.any(String) });
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('declares every error as application/problem+json with the Problem schema', () => {
    expect(document.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId']),
    );
    for (const { key, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses).filter(
        ([status]) => Number(status) >= 400,
      )) {
        expect(response.content, `${key} ${status}`).toEqual({
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        });
      }
    }
  });

  it('declares what the gateway adds to every route (414, 429, 503, 504), 415 where a body is read, and 401 everywhere', () => {
    for (const { key, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, key).toEqual(expect.arrayContaining(['401', '414', '429', '500', '503', '504']));
      if (['post', 'put', 'patch', 'delete'].includes(method))
        expect(statuses, key).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
    expect(codeFor(414)).toBe('URI_TOO_LONG');
  });

  it('gives code and reason as enums, each pointing to the table of docs/api.md that says what it means', () => {
    const { code, reason } = document.components.schemas.Problem.properties;
    expect(code).toMatchObject({ type: 'string', enum: [...problemCodes] });
    expect(new Set(code.enum)).toEqual(new Set([...Object.values(errorCodes), 'BAD_REQUEST']));
    expect(reason).toMatchObject({ type: 'string', enum: [...unauthorizedReasons] });
    expect(document.components.schemas.Problem.required).not.toContain('reason');
    expect(code.description).toContain('docs/api.md §1');
    expect(reason.description).toContain('docs/api.md §2');
    // The tables they point to: every code in the first, every reason in the second with what the client does.
    const api = readFileSync('docs/api.md', 'utf8');
    const section = (n: number) => api.slice(api.indexOf(`\n## ${n}. `), api.indexOf(`\n## ${n + 1}. `));
    for (const each of code.enum) expect(section(1), each).toContain(`\`${each}\``);
    for (const each of reason.enum)
      expect(section(2), each).toMatch(new RegExp(`^\\| \`${each}\` \\|.+\\|.+\\|$`, 'm'));
  });

  it('declares the WWW-Authenticate challenge on every 401', () => {
    for (const { key, operation } of operations()) {
      const unauthorized = operation.responses['401'] as { headers?: Record<string, unknown> };
      expect(unauthorized.headers?.['WWW-Authenticate'], key).toEqual({ $ref: '#/components/headers/WwwAuthenticate' });
    }
    expect(document.components.headers.WwwAuthenticate).toMatchObject({ required: true, schema: { type: 'string' } });
  });
});
