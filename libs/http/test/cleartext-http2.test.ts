import { connect as connectHttp2, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as connectTcp, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createLogger } from '@recipes/logging';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../src/index.js';

const SEED = 20261126;
const PREFACE_LENGTH = 24;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The distinct `cuts` strictly inside `length` bytes, in order: where to split what is written. */
const cutPoints = (cuts: number[], length: number) =>
  [...new Set(cuts)].sort((a, b) => a - b).filter((cut) => cut > 0 && cut < length);

let app: App;
let port: number;
/** `/api/held` calls `onHeld` as it begins, then waits for `releaseHeld` to answer. */
let onHeld: () => void = () => {};
let releaseHeld: () => void = () => {};

beforeAll(async () => {
  app = await createApp({ title: 'h2c', logger: createLogger({ service: 'test', level: 'silent' }), acceptH2c: true });
  app.get('/api/ping', async (request) => ({ pong: request.raw.httpVersion }));
  app.get('/api/held', async () => {
    const released = new Promise<void>((resolve) => (releaseHeld = resolve));
    onHeld();
    await released;
    return { held: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await app?.close();
});

/**
 * Writes `bytes` to a new connection in pieces cut at `cuts`, each piece after a pause; resolves with all it reads
 * until the server ends.
 */
async function rawExchange(bytes: Buffer, cuts: number[]): Promise<string> {
  const socket = connectTcp(port, '127.0.0.1');
  socket.setNoDelay(true);
  let read = '';
  socket.on('data', (chunk: Buffer) => (read += chunk.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let from = 0;
  for (const cut of cutPoints(cuts, bytes.length)) {
    socket.write(bytes.subarray(from, cut));
    from = cut;
    await pause(3);
  }
  socket.write(bytes.subarray(from));
  await ended;
  return read;
}

/**
 * A connection for an HTTP/2 client whose first `PREFACE_LENGTH` bytes (the preface) go out in pieces cut at
 * `cuts`, each after a pause, as a slow network may deliver them; the rest as it comes.
 */
function slowStartConnection(cuts: number[]): Duplex {
  const socket: Socket = connectTcp(port, '127.0.0.1');
  socket.setNoDelay(true);
  const pieces = cutPoints(cuts, PREFACE_LENGTH);
  let written = 0;
  const connection = new Duplex({
    async write(chunk: Buffer, _encoding, done) {
      let from = 0;
      for (const cut of pieces) {
        const at = cut - written;
        if (at <= from || at >= chunk.length) continue;
        socket.write(chunk.subarray(from, at));
        from = at;
        await pause(3);
      }
      written += chunk.length;
      socket.write(chunk.subarray(from), done);
    },
    read() {
      socket.resume();
    },
    final(done) {
      socket.end(done);
    },
    destroy(error, done) {
      socket.destroy();
      done(error);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    if (!connection.push(chunk)) socket.pause();
  });
  socket.once('end', () => connection.push(null));
  socket.once('error', (error) => connection.destroy(error));
  return connection;
}

function http2Get(session: ClientHttp2Session, path: string): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.once('response', (headers) => stream.once('end', () => resolve({ headers, body })));
    stream.once('error', reject);
  });
}

describe('one port, HTTP/1.1 and HTTP/2 with prior knowledge (h2c)', () => {
  it('answers both, many HTTP/2 streams at once on one connection', async () => {
    const http1 = await fetch(`http://127.0.0.1:${port}/api/ping`, { headers: { 'x-request-id': 'h1-ping' } });
    expect(http1.headers.get('x-request-id')).toBe('h1-ping');
    expect(await http1.json()).toEqual({ pong: '1.1' });

    const session = connectHttp2(`http://127.0.0.1:${port}`);
    try {
      // More than Node's default of 100 streams a client assumes a server allows.
      const answers = await Promise.all(Array.from({ length: 300 }, () => http2Get(session, '/api/ping')));
      for (const { headers, body } of answers) {
        expect(headers[':status']).toBe(200);
        expect(headers['x-request-id']).toEqual(expect.any(String));
        expect(JSON.parse(body)).toEqual({ pong: '2.0' });
      }
    } finally {
      session.close();
    }
  });

  it(`tells them apart however the first bytes are cut (fast-check, seed ${SEED})`, async () => {
    const request = Buffer.from('GET /api/ping HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n', 'latin1');
    const cuts = fc.array(fc.integer({ min: 1, max: PREFACE_LENGTH + 8 }), { maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(fc.boolean(), cuts, async (asHttp2, at) => {
        if (!asHttp2) {
          const answer = await rawExchange(request, at);
          expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
          expect(answer.endsWith('{"pong":"1.1"}')).toBe(true);
          return;
        }
        const session = connectHttp2(`http://127.0.0.1:${port}`, { createConnection: () => slowStartConnection(at) });
        try {
          const { headers, body } = await http2Get(session, '/api/ping');
          expect(headers[':status']).toBe(200);
          expect(JSON.parse(body)).toEqual({ pong: '2.0' });
        } finally {
          session.destroy();
        }
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('answers what does not begin as HTTP/2 does as HTTP/1.1, however alike its first bytes look', async () => {
    // Begins as the preface does, then differs: the HTTP/1.1 parser has it, and refuses it.
    const answer = await rawExchange(Buffer.from('PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n', 'latin1'), [3, 10]);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });
});

describe('closing, with HTTP/2 sessions open', () => {
  it('lets an open stream finish, takes no new one (GOAWAY), and closes a connection that has said nothing yet', async () => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const reached = new Promise<void>((resolve) => (onHeld = resolve));
    const held = http2Get(session, '/api/held');
    const silent = connectTcp(port, '127.0.0.1');
    const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    await new Promise<void>((resolve) => silent.once('connect', () => resolve()));
    await reached;

    const closed = app.close();
    await goaway;
    await expect(http2Get(session, '/api/ping')).rejects.toMatchObject({ code: 'ERR_HTTP2_GOAWAY_SESSION' });
    await silentClosed;
    releaseHeld();
    const { headers, body } = await held;
    expect(headers[':status']).toBe(200);
    expect(JSON.parse(body)).toEqual({ held: true });
    await closed;
  });
});
