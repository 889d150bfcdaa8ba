import { connect } from 'node:net';
import { problemSchema } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../src/index.js';

/** Requests Node's HTTP parser refuses never reach a route; they are answered as problem+json all the same. */
let app: App;
let port: number;

beforeAll(async () => {
  app = await createApp({ title: 'client errors', logger: createLogger({ service: 'test', level: 'silent' }) });
  app.get('/api/things', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.close());

/** Writes `bytes` on a fresh connection and reads until the server closes it. */
function exchange(bytes: Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

describe('requests that are not valid HTTP', () => {
  it.each([
    ['a raw non-ASCII byte in the path', Buffer.from('GET /api/caf\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'), 400],
    ['a request line that is not HTTP', Buffer.from('HELLO THERE\r\n\r\n'), 400],
    [
      'headers over the size limit',
      Buffer.from(`GET /api/things HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      431,
    ],
    [
      'a request line over the size limit',
      Buffer.from(`GET /api/things?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      414,
    ],
  ])('answers %s with %i problem+json and a request id', async (_name, bytes, status) => {
    const response = await exchange(bytes);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers.connection).toBe('close');
    const problem = problemSchema.parse(JSON.parse(response.body));
    expect(problem).toMatchObject({
      status,
      code: { 400: 'VALIDATION_ERROR', 414: 'URI_TOO_LONG' }[status] ?? 'BAD_REQUEST',
    });
    expect(problem.requestId).toBe(response.headers['x-request-id']);
  });
});
