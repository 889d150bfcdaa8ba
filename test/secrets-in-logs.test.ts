import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, unlimited } from './faults/support.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Issue 31, point 2: no log line of any process (gateway and services, stdout and stderr, at the most
 * verbose level) carries a secret that went through the system: a password, a token (in its header or put
 * in a query string by a careless client), a stream ticket (in the URL EventSource must use), an
 * idempotency key, a request body, or the key that signs tokens.
 */
const NAME = 'recipes_secret_logs';
let system: TestSystem;
let stopped = false;

beforeAll(async () => {
  system = await startTestSystem({
    name: NAME,
    portOffset: 5600,
    logs: 'pipe',
    env: { ...unlimited, LOG_LEVEL: 'trace' },
  });
}, 60_000);
afterAll(async () => {
  if (!stopped) await system?.stop();
}, 60_000);

/** Sends `head` as it is on a connection of its own and resolves with the answer's status line. */
function sendRaw(port: number, head: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => done(answer.split('\r\n')[0] ?? ''));
    socket.on('error', fail);
  });
}

/**
 * Every log line's text, and the text of any bytes a line carries as a serialized Buffer
 * (`{"type":"Buffer","data":[...]}`, as pino writes an error's raw request): a secret in either is found.
 */
function searchableText(line: string): string {
  const buffers: string[] = [];
  try {
    JSON.parse(line, (_key, value: unknown) => {
      const bytes = value as { type?: unknown; data?: unknown };
      if (bytes && bytes.type === 'Buffer' && Array.isArray(bytes.data))
        buffers.push(Buffer.from(bytes.data as number[]).toString('latin1'));
      return value;
    });
  } catch {
    // Not JSON (a line on stderr): its text is all there is.
  }
  return [line, ...buffers].join('\n');
}

describe('log lines', () => {
  it('carry no password, token, stream ticket, idempotency key, request body or signing key, whatever the flow went through', async () => {
    const api = apiOf(system);
    const gateway = system.urlOf('gateway');
    const secrets: Record<string, string> = {};

    // Register and log in.
    const password = 'pw-Secret-0f-Ada-9a1e7c';
    secrets.password = password;
    const registered = await api.call('POST', '/auth/register', { username: 'secret_ada', password });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    secrets.registrationToken = registered.body.token;
    const login = await api.call('POST', '/auth/login', { username: 'secret_ada', password });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token: string = login.body.token;
    secrets.loginToken = token;
    secrets.loginTokenSignature = token.split('.')[2]!;
    const wrongPassword = 'pw-Wrong-guess-5b2d8f';
    secrets.wrongPassword = wrongPassword;
    expect((await api.call('POST', '/auth/login', { username: 'secret_ada', password: wrongPassword })).status).toBe(
      401,
    );
    // Refresh tokens (and the one a refresh replaces, presented again), and a password change.
    secrets.registrationRefreshToken = registered.body.refreshToken;
    secrets.loginRefreshToken = login.body.refreshToken;
    const refreshed = await api.call('POST', '/auth/refresh', { refreshToken: login.body.refreshToken });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    secrets.refreshedRefreshToken = refreshed.body.refreshToken;
    expect((await api.call('POST', '/auth/refresh', { refreshToken: login.body.refreshToken })).status).toBe(200);
    const newPassword = 'pw-Changed-0f-Ada-4c3b2a';
    secrets.newPassword = newPassword;
    const changed = await api.call('PUT', '/users/me/password', { currentPassword: password, newPassword }, token);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await api.call('POST', '/auth/login', { username: 'secret_ada', password: newPassword })).status).toBe(200);
    const ada = { user: registered.body.user, token };
    const bob = await api.register('secret_bob');
    secrets.otherToken = bob.token;

    // Open Ada's stream by ticket, through the gateway, as a browser's EventSource does.
    const issued = await api.call('POST', '/notifications/stream-tickets', undefined, token);
    expect(issued.status).toBe(201);
    const ticket: string = issued.body.ticket;
    secrets.ticket = ticket;
    const streamUrl = `${gateway}/api/notifications/stream?ticket=${encodeURIComponent(ticket)}`;
    const stream = await openEventStream(streamUrl);
    expect(stream.status).toBe(200);
    await stream.next((event) => event.event === 'unread_count');

    // A notification arrives on it; the stream is cut; the used ticket resumes it with the event's id.
    const recipeId = await api.recipe(bob);
    const bodySecret = 'body-Secret-in-a-comment-4c9e';
    secrets.body = bodySecret;
    const idempotencyKey = 'idem-Secret-key-7d3a9b21';
    secrets.idempotencyKey = idempotencyKey;
    const comment = await api.call(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `@${ada.user.username} ${bodySecret}` },
      bob.token,
      { 'idempotency-key': idempotencyKey },
    );
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    const notification = await stream.next((event) => event.event === 'notification');
    stream.close();
    const resumed = await openEventStream(streamUrl, { 'last-event-id': notification.id! });
    expect(resumed.status).toBe(200);
    await resumed.next((event) => event.event === 'unread_count');
    resumed.close();
    // A resume without the proof is refused: an error line, and a problem whose instance is the path alone.
    const refused = await fetch(streamUrl);
    expect(refused.status).toBe(401);
    expect((await refused.json()).instance).toBe('/api/notifications/stream');

    // A careless client puts its token, or a key, in a query string.
    const inQuery = [
      `/notifications/unread-count?access_token=${token}`,
      `/notifications?page=1&token=${token}`,
      `/nowhere?access_token=${token}&ticket=${ticket}`,
    ];
    for (const path of inQuery) expect((await api.call('GET', path)).status).toBeGreaterThanOrEqual(400);
    const keyInQuery = 'idem-Secret-in-a-query-1f6c';
    secrets.idempotencyKeyInQuery = keyInQuery;
    const withKeyInQuery = await api.call(
      'POST',
      `/recipes/${recipeId}/comments?idempotency_key=${keyInQuery}`,
      { content: 'hello' },
      bob.token,
    );
    expect(withKeyInQuery.status).toBeLessThan(500);
    // And a request Node's parser refuses, its ticket in the request line.
    expect(
      await sendRaw(
        system.process('gateway')!.port,
        `GET /api/notifications/stream?ticket=${ticket} HTTP/1.1\r\nHost: x\r\nBad\u0001Header: y\r\n\r\n`,
      ),
    ).toMatch(/^HTTP\/1\.1 400/);

    // The key that signs the tokens: each line of its base64 body.
    const privateKey = readFileSync(resolve(`.keys/${NAME}/jwt-private.pem`), 'utf8');
    for (const [n, line] of privateKey
      .split('\n')
      .filter((line) => line && !line.startsWith('-----'))
      .entries())
      secrets[`signingKey${n}`] = line;

    // Every line of every process, once they have all stopped (their shutdown lines too).
    stopped = true;
    await system.stop();
    const lines = system.processes.flatMap((process) =>
      [...process.lines, ...process.errorLines].map((line) => ({ service: process.service, line })),
    );
    const leaks = lines.flatMap(({ service, line }) => {
      const text = searchableText(line);
      return Object.entries(secrets)
        .filter(([, secret]) => text.includes(secret) || text.includes(encodeURIComponent(secret)))
        .map(([name]) => `${service} logged the ${name}: ${line.slice(0, 300)}`);
    });
    expect(leaks).toEqual([]);

    // The search saw the lines that would carry them: the stream's request lines, in the gateway and the service.
    const streamLines = lines.filter(({ line }) => line.includes('/api/notifications/stream?'));
    expect(new Set(streamLines.map(({ service }) => service))).toEqual(new Set(['gateway', 'notifications']));
    // However each ended (closed by its client, cut by the gateway, refused), each stream request left its line.
    for (const service of ['gateway', 'notifications']) {
      const statuses = streamLines
        .filter((line) => line.service === service)
        .map(({ line }) => (JSON.parse(line) as { res: { statusCode: number } }).res.statusCode);
      expect(statuses.sort(), `${service}'s lines of stream requests`).toEqual([200, 200, 401]);
    }
    expect(streamLines.every(({ line }) => line.includes('ticket=[redacted]'))).toBe(true);
    expect(lines.some(({ line }) => line.includes('access_token=[redacted]'))).toBe(true);
  }, 60_000);
});
