import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../src/index.js';

/** What node-postgres throws while the database restarts, and a plain bug for contrast. */
const failures: Record<string, () => Error> = {
  'no connection slot left': () => Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
  'admin-shutdown': () =>
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  'starting-up': () => Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
  refused: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  terminated: () => new Error('Connection terminated unexpectedly'),
  'broken client': () => new Error('Client has encountered a connection error and is not queryable'),
  'statement timeout': () =>
    Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
  'lock timeout': () => Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }),
  'idle in transaction': () =>
    Object.assign(new Error('terminating connection due to idle-in-transaction timeout'), { code: '25P03' }),
  bug: () => new TypeError("Cannot read properties of undefined (reading 'id')"),
};

let app: App;
beforeAll(async () => {
  app = await createApp({ title: 'unavailable', logger: createLogger({ service: 'test', level: 'silent' }) });
  app.get('/fail/:kind', async (request) => {
    throw failures[(request.params as { kind: string }).kind]!();
  });
  await app.ready();
});
afterAll(() => app.close());

describe('a dependency that is gone for the moment', () => {
  it.each([
    'no connection slot left',
    'admin-shutdown',
    'starting-up',
    'refused',
    'terminated',
    'broken client',
    'statement timeout',
    'lock timeout',
    'idle in transaction',
  ])('(%s) gives 503 problem+json, not 500', async (kind) => {
    const response = await app.inject({ method: 'GET', url: `/fail/${kind}` });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      detail: 'The service is unavailable, try again later',
    });
  });

  it('leaves other errors at 500, without their message', async () => {
    const response = await app.inject({ method: 'GET', url: '/fail/bug' });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('Cannot read');
  });
});
