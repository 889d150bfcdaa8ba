import { connect, type Socket } from 'node:net';
import { openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonClient } from './support/http.js';
import { startTestSystem, type TestSystem } from './support/system.js';
import { register } from './support/world.js';

/**
 * Clients that send their requests slowly (headers never finished, a body announced and never sent) get
 * `408` once their time is up and their connection closed, at the gateway and at a service alike, while
 * ordinary requests go on being answered; an event stream, whose request is whole at once, stays open.
 */
const HEADERS_MS = 1_000;
const REQUEST_MS = 2_000;
/** Node looks for late requests once a second: a 408 comes at most this long after its time. */
const SLACK_MS = 2_500;
const SLOW_CLIENTS = 300;

let system: TestSystem;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_slow_clients',
    portOffset: 6100,
    env: {
      RATE_LIMIT_ENABLED: 'false',
      CLIENT_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      CLIENT_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    },
  });
}, 90_000);
afterAll(() => system?.stop());

interface SlowClient {
  /** Everything the server sent back, once it closed the connection, and when (ms after the client began). */
  answer: Promise<{ text: string; afterMs: number }>;
  socket: Socket;
}

/** Connects to `url`'s port and sends `start`, then nothing more. */
function slowClient(url: string, start: string): SlowClient {
  const { hostname, port } = new URL(url);
  const began = performance.now();
  const socket = connect({ host: hostname, port: Number(port) });
  const chunks: Buffer[] = [];
  const answer = new Promise<{ text: string; afterMs: number }>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString(), afterMs: performance.now() - began }));
  });
  socket.write(start);
  return { answer, socket };
}

const bodyNeverSent = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"u`;
const headersNeverFinished = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n`;

function expect408(answer: { text: string; afterMs: number }, withinMs: number, context: string) {
  expect(answer.text, context).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(answer.text, context).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(answer.afterMs, context).toBeLessThan(withinMs + SLACK_MS);
}

describe('slow clients', () => {
  it(`${SLOW_CLIENTS} clients holding a body back each get 408 and are cut off, while ordinary requests are answered`, async () => {
    const gateway = system.urlOf('gateway');
    const slow = Array.from({ length: SLOW_CLIENTS }, (_, i) =>
      slowClient(gateway, i % 2 === 0 ? bodyNeverSent('/api/auth/login') : headersNeverFinished('/api/users')),
    );
    const api = jsonClient(`${gateway}/api`);
    const ada = await register(api, 'slow_ada');
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      expect((await api('GET', `/users/${ada.user.id}`)).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    const answers = await Promise.all(slow.map((client) => client.answer));
    answers.forEach((answer, i) => expect408(answer, i % 2 === 0 ? REQUEST_MS : HEADERS_MS, `slow client ${i}`));
  }, 60_000);

  it('are cut off by a service too, on its own port', async () => {
    const users = system.urlOf('users');
    const [body, headers] = [
      slowClient(users, bodyNeverSent('/api/auth/login')),
      slowClient(users, headersNeverFinished('/api/users')),
    ];
    expect408(await body.answer, REQUEST_MS, 'a body never sent, at the users service');
    expect408(await headers.answer, HEADERS_MS, 'headers never finished, at the users service');
  }, 30_000);

  it('leave an event stream open for longer than a request may take', async () => {
    const api = jsonClient(`${system.urlOf('gateway')}/api`);
    const [reader, writer] = [await register(api, 'slow_reader'), await register(api, 'slow_writer')];
    const stream = await openEventStream(`${system.urlOf('gateway')}/api/notifications/stream`, {
      authorization: `Bearer ${reader.token}`,
    });
    try {
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, REQUEST_MS + SLACK_MS));
      // Still open: a mention made now arrives on it.
      const recipe = await api(
        'POST',
        '/recipes',
        { title: 'Long-lived', cameraModel: 'X-T5', filmSimulation: 'Provia' },
        writer.token,
      );
      await api(
        'POST',
        `/recipes/${recipe.body.recipe.id}/comments`,
        { content: `For @${reader.user.username}` },
        writer.token,
      );
      const event = await stream.next((e) => e.event === 'notification', 10_000);
      expect(JSON.parse(event.data).actor.username).toBe(writer.user.username);
    } finally {
      stream.close();
    }
  }, 30_000);
});
