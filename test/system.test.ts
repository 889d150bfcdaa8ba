import { problemSchema } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, serviceFor } from '../services/gateway/src/route-table.js';
import { mentionFlow } from './client/client.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/** Every built service as its own process behind the gateway, as `npm start` runs them. */
let system: TestSystem;
let api: string;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_system',
    portOffset: 2100,
  });
  api = `${system.urlOf('gateway')}/api`;
}, 60_000);
afterAll(() => system?.stop());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

describe('the system through the gateway', () => {
  it('registers, logs in and shows the caller their profile', async () => {
    const registered = await call('POST', '/auth/register', { username: 'system_ada', password: 'correct horse' });
    expect(registered.status).toBe(201);
    const login = await call('POST', '/auth/login', { username: 'SYSTEM_ADA', password: 'correct horse' });
    expect(login.status).toBe(200);
    const me = await call('GET', '/users/me', undefined, { authorization: `Bearer ${login.body.token}` });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user: registered.body.user });
  });

  it('carries the request id through the gateway and back', async () => {
    const response = await call('GET', '/users/system_ada', undefined, { 'x-request-id': 'system-test-1' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('system-test-1');
  });

  it('answers errors of every process as problem+json', async () => {
    const conflict = await call('POST', '/auth/register', { username: 'System_Ada', password: 'correct horse' });
    expect(conflict.status).toBe(409);
    expect(problemSchema.parse(conflict.body).code).toBe('CONFLICT');
    const unknown = await call('GET', '/nothing-here');
    expect(unknown.status).toBe(404);
    expect(problemSchema.parse(unknown.body).code).toBe('NOT_FOUND');
    const unauthenticated = await call('GET', '/users/me');
    expect(unauthenticated.status).toBe(401);
  });

  it('serves the client generated from its OpenAPI document: register, comment with a mention, read the notification', async () => {
    const { ada, bob, comment, notification, unreadCount } = await mentionFlow(
      system.urlOf('gateway'),
      'system_client',
    );
    expect(notification).toMatchObject({
      type: 'mention_recipe_comment',
      actor: { id: bob.id },
      commentId: comment.id,
      isRead: false,
    });
    expect(unreadCount).toBe(1);
    expect(ada.username).toBe('system_client_ada');
    // What passed through was recorded and checked as it went (see test/support/system.ts).
    expect(system.conformance.seen().responses).toBeGreaterThanOrEqual(6);
    expect(system.conformance.seen().events).toBeGreaterThanOrEqual(3);
    expect(system.conformance.mismatches()).toEqual([]);
  });

  it('reports each service’s readiness at /health', async () => {
    const response = await fetch(`${system.urlOf('gateway')}/health`);
    const health = await response.json();
    for (const service of system.services.filter((name) => name !== 'gateway')) {
      expect(health.services[service]).toBe('up');
    }
  });

  it('routes exactly what each service documents: no public path missed by the gateway, and no route to nothing', async () => {
    const documented = new Map<string, string[]>();
    for (const service of system.services.filter((name) => name !== 'gateway')) {
      const document = (await (await fetch(`${system.urlOf(service)}/openapi.json`)).json()) as {
        paths: Record<string, object>;
      };
      documented.set(service, Object.keys(document.paths));
    }
    // Each documented path, with every {parameter} filled, goes to the service that documents it.
    for (const [service, paths] of documented) {
      for (const path of paths)
        expect(serviceFor(path.replace(/\{\w+\}/g, 'x1')), `${path} of ${service}`).toBe(service);
    }
    // Each pattern of the table names something its service documents.
    const asPattern = (path: string) => path.replace(/\{\w+\}/g, ':id');
    for (const [pattern, service] of routeTable) {
      const patterns = (documented.get(service) ?? []).map(asPattern);
      const matches = pattern.endsWith('/*')
        ? patterns.some((p) => p.startsWith(pattern.slice(0, -1)))
        : patterns.includes(pattern.replace(/:\w+/g, ':id'));
      expect(matches, `${pattern} → ${service}`).toBe(true);
    }
  });
});
