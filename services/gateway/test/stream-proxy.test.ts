import { get as httpGet, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { constants, createServer, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { setTimeout as pause } from 'node:timers/promises';
import { type App, dualProtocolServer } from '@recipes/http';
import { eventually } from '@recipes/testing';
import { type EventStreamClient, openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressOf, startGateway, unusedUrl } from './support/servers.js';

const STREAM_PATH = '/api/notifications/stream';
const UPSTREAM_TIMEOUT_MS = 300;
/**
 * How long a stream stays idle in the test: over three times UPSTREAM_TIMEOUT_MS, and past when undici would
 * really cut a body for it (it checks body timeouts on a coarse clock: a 300 ms one fires after about 1 s).
 */
const IDLE_MS = 2_000;
const AUTHORIZED = { authorization: 'Bearer good' };
const unauthorized = {
  type: 'https://recipes.example/problems/unauthorized',
  title: 'Unauthorized',
  status: 401,
  code: 'UNAUTHORIZED',
  reason: 'TOKEN_MISSING',
  detail: 'A bearer token or a stream ticket is required',
};
const CHALLENGE = 'Bearer realm="recipes"';

/** One stream the fake notifications service holds open, written to by the test. */
interface HeldStream {
  headers: IncomingHttpHeaders;
  write(frame: string): void;
  /** Resolves when the response's connection closes before the service ended the stream: the gateway went away. */
  closed: Promise<void>;
  /** Whether all that was written has been handed over once the response had to buffer (its 'drain'). */
  drained: boolean;
}

/**
 * A stand-in for the notifications service, over HTTP/2 with prior knowledge as the gateway speaks to it for
 * streams: holds each `GET /api/notifications/stream` open as an event stream and writes only the frames the
 * test asks for; answers 401 problem+json without a token.
 */
async function startNotifications(listenOn = 0) {
  const streams: HeldStream[] = [];
  // HTTP/1.1 on the same port too, as the service's own server speaks it: the gateway asks `/health/ready` over it.
  const server = dualProtocolServer((request, response) => {
    if (request.url === '/health/ready') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      return;
    }
    if (request.headers.authorization !== AUTHORIZED.authorization) {
      response
        .writeHead(401, { 'content-type': 'application/problem+json', 'www-authenticate': CHALLENGE })
        .end(JSON.stringify(unauthorized));
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-upstream': 'notifications',
    });
    const held: HeldStream = {
      headers: request.headers,
      write: (frame) => response.write(frame),
      closed: new Promise((resolve) => response.once('close', () => resolve())),
      drained: false,
    };
    response.once('drain', () => {
      held.drained = true;
    });
    streams.push(held);
  }, {});
  await new Promise<void>((resolve) => server.listen(listenOn, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    streams,
    /** The stream opened after the first `count`, once the gateway has opened it. */
    stream: (index: number) => eventually(async () => streams[index]),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP/2 instance that takes no stream: `refuse` answers each one. Counts the streams it was sent. */
async function startUnwilling(refuse: (stream: ServerHttp2Stream) => void) {
  let streams = 0;
  const sessions = new Set<Http2Session>();
  const server = createServer();
  server.on('stream', (stream) => {
    streams += 1;
    // Closing a stream with an error code reports that code on this side too.
    stream.on('error', () => undefined);
    refuse(stream);
  });
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    streams: () => streams,
    close: () => {
      for (const session of sessions) session.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const frame = (id: number) => `id: ${id}\nevent: notification\ndata: {"n":${id}}\n\n`;
const frameIds = (client: EventStreamClient) =>
  client.received.filter((event) => event.comment === undefined).map((event) => event.id);

/** `promise`, or a failure naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

let notifications: Awaited<ReturnType<typeof startNotifications>>;
let gateway: App;
let base: string;
const clients: EventStreamClient[] = [];

async function gatewayFor(notificationsUrl: string, settings: Record<string, string> = {}): Promise<App> {
  const elsewhere = await unusedUrl();
  return startGateway(
    {
      USERS_URL: elsewhere,
      CONTENT_URL: elsewhere,
      COMMENTS_URL: elsewhere,
      COLLECTIONS_URL: elsewhere,
      NOTIFICATIONS_URL: notificationsUrl,
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      RATE_LIMIT_ENABLED: 'false',
      ...settings,
    },
    { listen: true },
  );
}

/**
 * Opens a stream through `app` with node:http, which tells a clean end (the last chunk) from a cut
 * connection and can stop reading, and returns its response with the upstream's side of it.
 */
async function openRawStream(app: App) {
  const index = notifications.streams.length;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    httpGet(`${addressOf(app)}${STREAM_PATH}`, { headers: { ...AUTHORIZED, accept: 'text/event-stream' } }, resolve).on(
      'error',
      reject,
    );
  });
  return { response, upstream: await notifications.stream(index) };
}

/** Opens a stream through `app` and returns it with the upstream's side of it. */
async function openStream(app: App, headers: Record<string, string> = {}) {
  const index = notifications.streams.length;
  const client = await openEventStream(`${addressOf(app)}${STREAM_PATH}`, { ...AUTHORIZED, ...headers });
  clients.push(client);
  return { client, upstream: await notifications.stream(index) };
}

beforeAll(async () => {
  notifications = await startNotifications();
  gateway = await gatewayFor(notifications.url);
  base = addressOf(gateway);
});

afterAll(async () => {
  for (const client of clients) client.close();
  // After a fetch() aborts a stream, Node's undici opens a fresh connection it never sends on; the server
  // counts it as busy, not idle, and would wait the client's 4 s keep-alive for it. Nothing is in flight now.
  gateway?.server.closeAllConnections();
  await gateway?.close();
  await notifications?.close();
});

describe('GET /api/notifications/stream through the gateway', () => {
  it('opens the stream on the next instance when one refuses the connection (it has stopped)', async () => {
    const stopped = await unusedUrl();
    const failover = await gatewayFor(`${stopped},${notifications.url}`);
    try {
      const { client } = await openStream(failover);
      expect(client.status).toBe(200);
      client.close();
    } finally {
      failover.server.closeAllConnections();
      await failover.close();
    }
  });

  it('waits for the only instance while it restarts, and opens the stream once it listens', async () => {
    const restarting = await unusedUrl();
    const waiting = await gatewayFor(restarting, { UPSTREAM_RESTART_WAIT_MS: '10000' });
    let restarted: Awaited<ReturnType<typeof startNotifications>> | undefined;
    try {
      const opening = openEventStream(`${addressOf(waiting)}${STREAM_PATH}`, AUTHORIZED);
      await pause(500);
      restarted = await startNotifications(Number(new URL(restarting).port));
      const listeningAt = Date.now();
      const client = await opening;
      clients.push(client);
      expect(client.status).toBe(200);
      // Once the instance answers ready, not at the end of the wait.
      expect(Date.now() - listeningAt).toBeLessThan(2_000);
      expect(restarted.streams).toHaveLength(1);
      client.close();
    } finally {
      waiting.server.closeAllConnections();
      await waiting.close();
      await restarted?.close();
    }
  });

  it('answers 503 with Retry-After when no instance takes the stream within the restart wait', async () => {
    const down = await gatewayFor(await unusedUrl(), { UPSTREAM_RESTART_WAIT_MS: '500' });
    try {
      const response = await fetch(`${addressOf(down)}${STREAM_PATH}`, { headers: AUTHORIZED });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      await response.body?.cancel();
    } finally {
      down.server.closeAllConnections();
      await down.close();
    }
  });

  it('opens the stream on the next instance when one refuses the stream, goes away or answers 503', async () => {
    // Three instances that take no stream: one resets each stream (REFUSED_STREAM), one sends GOAWAY on
    // each session as a stopping instance does, one answers 503. A stream's GET acts on nothing, so the
    // gateway moves on from each; round-robin starts every open at a different instance.
    const unwilling = await Promise.all([
      startUnwilling((stream) => stream.close(constants.NGHTTP2_REFUSED_STREAM)),
      startUnwilling((stream) => stream.session?.goaway(constants.NGHTTP2_NO_ERROR)),
      startUnwilling((stream) => stream.respond({ ':status': 503 }, { endStream: true })),
    ]);
    const failover = await gatewayFor([...unwilling.map((server) => server.url), notifications.url].join(','));
    try {
      for (let i = 0; i < 4; i += 1) {
        const { client } = await openStream(failover);
        expect(client.status).toBe(200);
        client.close();
      }
      for (const server of unwilling) expect(server.streams()).toBeGreaterThan(0);
    } finally {
      failover.server.closeAllConnections();
      await failover.close();
      await Promise.all(unwilling.map((server) => server.close()));
    }
  });

  it('passes the stream headers and the request id on', async () => {
    const { client, upstream } = await openStream(gateway, { 'x-request-id': 'stream-headers-1' });
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toBe('text/event-stream');
    expect(client.headers.get('x-request-id')).toBe('stream-headers-1');
    expect(client.headers.get('x-upstream')).toBe('notifications');
    expect(upstream.headers['x-request-id']).toBe('stream-headers-1');
    client.close();
  });

  it('hands each frame on as soon as the service writes it', async () => {
    const { client, upstream } = await openStream(gateway);
    // The next frame is written only once the client has the one before: a gateway that held frames back
    // (until more came, or until the end) would never let the first through.
    for (const id of [1, 2, 3]) {
      upstream.write(frame(id));
      const event = await client.next((received) => received.id === String(id), 2_000);
      expect(event).toEqual({ event: 'notification', data: `{"n":${id}}`, id: String(id) });
    }
    expect(frameIds(client)).toEqual(['1', '2', '3']);
    client.close();
  });

  it('keeps an idle stream open well past the upstream timeout', async () => {
    const { client, upstream } = await openStream(gateway);
    let ended = false;
    void client.ended.then(() => {
      ended = true;
    });
    upstream.write(frame(1));
    await client.next((event) => event.id === '1', 2_000);

    // The idleness itself is what is tested, so it is waited out (see IDLE_MS).
    await pause(IDLE_MS);
    expect(ended).toBe(false);
    upstream.write(frame(2));
    await client.next((event) => event.id === '2', 2_000);
    expect(frameIds(client)).toEqual(['1', '2']);
    client.close();
  });

  it('closes the upstream request as soon as the client goes away', async () => {
    const { client, upstream } = await openStream(gateway);
    upstream.write(frame(1));
    await client.next((event) => event.id === '1', 2_000);

    client.close();
    await within(upstream.closed, 1_000, 'the upstream request closed after the client left');
  });

  it('opens the stream for a request that came with a body, and passes neither the body nor its length on', async () => {
    const index = notifications.streams.length;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const body = '{"unexpected":true}';
      const headers = { ...AUTHORIZED, 'content-type': 'application/json', 'content-length': String(body.length) };
      const sent = httpRequest(`${base}${STREAM_PATH}`, { method: 'GET', headers }, resolve);
      sent.on('error', reject);
      sent.end(body);
    });
    expect(response.statusCode).toBe(200);
    const upstream = await notifications.stream(index);
    expect(upstream.headers['content-length']).toBeUndefined();
    response.destroy();
    await within(upstream.closed, 1_000, 'the upstream request closed after the client left');
  });

  it('passes an upstream refusal (401 problem+json and its challenge, no stream) on as it is', async () => {
    const response = await fetch(`${base}${STREAM_PATH}`, {
      headers: { accept: 'text/event-stream', 'x-request-id': 'stream-401' },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('x-request-id')).toBe('stream-401');
    expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(await response.json()).toEqual(unauthorized);
  });
});

describe('gateway shutdown with streams open', () => {
  it('ends each stream cleanly, after every frame sent so far, and closes the upstream requests', async () => {
    const closing = await gatewayFor(notifications.url);
    const { client, upstream } = await openStream(closing);

    // A second stream read with node:http, which tells a clean end (the last chunk) from a cut connection.
    const { response: raw, upstream: rawUpstream } = await openRawStream(closing);
    let rawText = '';
    raw.setEncoding('utf8');
    raw.on('data', (chunk: string) => {
      rawText += chunk;
    });
    const rawOutcome = new Promise<string>((resolve) => {
      raw.once('end', () => resolve(raw.complete ? 'complete' : 'incomplete'));
      raw.once('aborted', () => resolve('aborted'));
      raw.once('error', (error) => resolve(`error: ${error.message}`));
    });

    for (const id of [1, 2]) {
      upstream.write(frame(id));
      rawUpstream.write(frame(id));
      await client.next((event) => event.id === String(id), 2_000);
    }
    await eventually(async () => rawText.endsWith(frame(2)) || undefined);

    await within(closing.close(), 3_000, 'the gateway closed');
    await within(client.ended, 1_000, 'the stream ended at the client');
    expect(frameIds(client)).toEqual(['1', '2']);
    expect(await within(rawOutcome, 1_000, 'the raw stream ended')).toBe('complete');
    expect(rawText).toBe(frame(1) + frame(2));
    await within(Promise.all([upstream.closed, rawUpstream.closed]), 1_000, 'the upstream requests closed');
  });
});

describe('a stream whose client does not keep up', () => {
  const STALL_TIMEOUT_MS = 1_500;
  /** 64 KiB frames: 128 of them, 8 MiB, more than the sockets' buffers on loopback take (about 4 MiB). */
  const bulkFrame = (id: number) => `id: ${id}\nevent: notification\ndata: "${'x'.repeat(64 * 1024)}"\n\n`;
  const BULK_FRAMES = 128;
  let stalling: App;

  beforeAll(async () => {
    stalling = await gatewayFor(notifications.url, { STREAM_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS) });
  });
  afterAll(async () => {
    stalling?.server.closeAllConnections();
    await stalling?.close();
  });

  it('is cut off once it has taken nothing for the stall timeout, and its upstream stream is cancelled', async () => {
    const { response, upstream } = await openRawStream(stalling);
    expect(response.statusCode).toBe(200);
    // From now on the client reads nothing: its socket's buffers fill, then the gateway's.
    response.pause();
    for (let id = 1; id <= BULK_FRAMES; id++) upstream.write(bulkFrame(id));

    await within(upstream.closed, 10_000, 'the upstream stream cancelled');
    // Meanwhile the gateway held the service back (HTTP/2 flow control) rather than taking its 8 MiB in.
    expect(upstream.drained).toBe(false);
    const open = stalling.metricsRegistry.getSingleMetric('recipes_event_streams_open')!;
    await eventually(async () => ((await open.get()).values[0]?.value === 0 ? true : undefined));
    response.destroy();
  });

  it('is not cut off when it falls behind for less than the stall timeout, and gets every frame', async () => {
    const { response, upstream } = await openRawStream(stalling);
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.pause();
    for (let id = 1; id <= BULK_FRAMES; id++) upstream.write(bulkFrame(id));
    // A third of the stall timeout behind, with the burst waiting in the sockets' buffers and the gateway's.
    await pause(STALL_TIMEOUT_MS / 3);
    response.resume();
    await eventually(async () => text.endsWith(bulkFrame(BULK_FRAMES)) || undefined, 10_000);

    // Twice the stall timeout later the stream is still open: a frame written now arrives.
    await pause(2 * STALL_TIMEOUT_MS);
    upstream.write(frame(BULK_FRAMES + 1));
    await eventually(async () => text.endsWith(frame(BULK_FRAMES + 1)) || undefined, 2_000);
    const sent = Array.from({ length: BULK_FRAMES }, (_, i) => bulkFrame(i + 1)).join('') + frame(BULK_FRAMES + 1);
    expect(text === sent, 'every frame, once, in order').toBe(true);
    response.destroy();
  });
});
