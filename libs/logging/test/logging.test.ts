import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger, eventLogger, urlForLog } from '../src/index.js';
import { capture } from './support.js';

describe('logging', () => {
  it('writes JSON lines with service, level word and ISO time', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'users', destination }).info({ userId: 'u1' }, 'registered');
    expect(lines[0]).toMatchObject({ service: 'users', level: 'info', userId: 'u1', msg: 'registered' });
    expect(lines[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('puts the event id and correlation id on every line of a handler', () => {
    const { lines, destination } = capture();
    const log = eventLogger(createLogger({ service: 'content', destination }), {
      id: 'e1',
      type: 'user.created',
      correlationId: 'req-42',
    });
    log.info('first');
    log.child({ step: 2 }).warn('second');
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toMatchObject({ eventId: 'e1', eventType: 'user.created', correlationId: 'req-42' });
  });

  it('never writes passwords, tokens or authorization headers', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'users', destination }).info({
      body: { password: 'hunter22' },
      token: 'abc',
      req: { headers: { authorization: 'Bearer abc' } },
    });
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain('Bearer abc');
    expect(text).not.toContain('"abc"');
  });
});

describe('request URLs in log lines', () => {
  /** A value long and odd enough that finding it in a line means it was logged. */
  const secret = fc.stringMatching(/^[A-Za-z0-9_~-]{16,48}$/);
  const path = fc
    .array(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { maxLength: 4 })
    .map((segments) => `/api/${segments.join('/')}`);
  /** Any name but the paging and filter ones: those a client may put a credential under, and any other. */
  const name = fc.oneof(
    fc.constantFrom('ticket', 'access_token', 'token', 'lastEventId', 'jwt', 'key', 'code'),
    fc
      .string({ minLength: 1, maxLength: 50 })
      .filter((n) => !['page', 'limit', 'standalone', 'content_type'].includes(n)),
  );
  const query = fc.array(fc.tuple(name, secret), { minLength: 1, maxLength: 5 });

  it('keeps the path and never the value of a query parameter other than paging and filters, however it is sent', () => {
    fc.assert(
      fc.property(path, query, fc.boolean(), (path, parameters, paging) => {
        const search = new URLSearchParams(parameters);
        if (paging) search.append('page', '2');
        const logged = urlForLog(`${path}?${search.toString()}`);
        expect(logged.startsWith(`${path}?`)).toBe(true);
        for (const [, value] of parameters) expect(logged).not.toContain(value);
        if (paging) expect(logged).toContain('page=2');
      }),
    );
  });

  it('never writes a query value other than paging and filters on a request line, nor a token sent as a name', () => {
    const { lines, destination } = capture();
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
    const log = createLogger({ service: 'gateway', destination }).child({ requestId: 'r1' });
    log.info(
      { req: { method: 'GET', url: '/api/notifications/stream?ticket=T1cket-Secret&lastEventId=0190-id' } },
      'request completed',
    );
    log.info(
      { req: { method: 'GET', url: `/api/notifications?page=2&limit=5&access_token=${jwt}` } },
      'request completed',
    );
    log.info({ req: { method: 'GET', url: `/api/notifications?${jwt}` } }, 'request completed');
    log.info(
      { req: { method: 'GET', url: '/api/saved?standalone=true&content_type=recipe&verbose' } },
      'request completed',
    );
    expect(lines.map((line) => (line.req as { url: string }).url)).toEqual([
      '/api/notifications/stream?ticket=[redacted]&lastEventId=[redacted]',
      '/api/notifications?page=2&limit=5&access_token=[redacted]',
      '/api/notifications?[redacted]',
      '/api/saved?standalone=true&content_type=recipe&verbose=',
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/T1cket-Secret|0190-id|eyJ/);
  });
});
