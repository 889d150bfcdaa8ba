import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { decryptAes128gcm, receiverKeys, type ReceiverKeys, verifyVapid } from './push-crypto.js';

/** A push the local push service accepted, decrypted. */
export interface ReceivedPush {
  subscriptionId: string;
  /** The decrypted payload, parsed as JSON. */
  payload: unknown;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  /** When its request came in, and when it was accepted (later by a `holdMs` answer's time). */
  arrivedAt: number;
  receivedAt: number;
}

/**
 * What the push service answers instead of accepting at once: a status (with `Retry-After` seconds), no
 * answer at all, or `holdMs` of nothing and then an accept, as a slow push service would (whether the
 * sender still waits or not).
 */
export type PushAnswer =
  { status: 404 | 410 | 400 | 429 | 503; retryAfterSeconds?: number } | 'hang' | { holdMs: number };

/** A subscription as a browser hands it to the app (`PushSubscription.toJSON()`). */
export interface LocalSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface LocalPushService {
  origin: string;
  /**
   * A new subscription, as a browser makes one with `applicationServerKey` (checked against each push's `k`, when
   * given).
   */
  subscribe(applicationServerKey?: string): LocalSubscription;
  /** The next pushes to `subscriptionId` get these answers, in turn; then it accepts again. */
  answerNext(subscriptionId: string, ...answers: PushAnswer[]): void;
  /** Every push to `subscriptionId` gets `answer` from now on (undefined: accepted again). */
  answerAlways(subscriptionId: string, answer: PushAnswer | undefined): void;
  /** The pushes accepted for `subscriptionId`, in the order they came. */
  received(subscriptionId: string): ReceivedPush[];
  /** Every request that reached `subscriptionId`, accepted or not. */
  attempts(subscriptionId: string): number;
  /** Waits for the `count`-th push accepted for `subscriptionId` (1 by default), failing after `timeoutMs`. */
  waitFor(subscriptionId: string, count?: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  /**
   * What was refused for breaking the protocol (a bad VAPID header, a body that does not decrypt…): must stay empty.
   */
  violations: string[];
  close(): Promise<void>;
}

interface Entry {
  id: string;
  keys: ReceiverKeys;
  applicationServerKey: string | undefined;
  next: PushAnswer[];
  always: PushAnswer | undefined;
  received: ReceivedPush[];
  attempts: number;
  waiters: Set<() => void>;
}

/**
 * A local RFC 8030 push service for tests: `POST /push/<id>` checks the VAPID header (RFC 8292) and the
 * `TTL`, decrypts the `aes128gcm` body (RFC 8291) with the subscription's private key, and records the
 * payload; or answers as it was told to (404, 410, 429 with `Retry-After`, 503, or never).
 */
export async function startLocalPushService(): Promise<LocalPushService> {
  const entries = new Map<string, Entry>();
  const sockets = new Set<Socket>();
  const violations: string[] = [];
  let origin = '';

  const refuse = (response: ServerResponse, status: number, why: string) => {
    violations.push(why);
    response.writeHead(status).end(why);
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const entry =
      request.method === 'POST' ? entries.get(/^\/push\/([\w-]+)$/.exec(request.url ?? '')?.[1] ?? '') : undefined;
    if (!entry) return void response.writeHead(404).end();
    entry.attempts += 1;
    const arrivedAt = Date.now();
    const answer = entry.next.shift() ?? entry.always;
    if (answer === 'hang') return;
    if (answer && 'holdMs' in answer) await new Promise((resolve) => setTimeout(resolve, answer.holdMs));
    else if (answer) {
      const headers = answer.retryAfterSeconds === undefined ? {} : { 'retry-after': String(answer.retryAfterSeconds) };
      return void response.writeHead(answer.status, headers).end();
    }
    try {
      verifyVapid(request.headers.authorization, origin, entry.applicationServerKey);
    } catch (error) {
      return refuse(response, 403, `vapid: ${(error as Error).message}`);
    }
    const ttl = Number(request.headers.ttl);
    if (!Number.isInteger(ttl) || ttl < 0) return refuse(response, 400, 'TTL missing or not a whole number');
    if (request.headers['content-encoding'] !== 'aes128gcm')
      return refuse(response, 415, `content-encoding ${request.headers['content-encoding']}`);
    const body = Buffer.concat(chunks);
    if (body.length > 4096) return refuse(response, 413, `body of ${body.length} bytes`);
    const topic = request.headers.topic as string | undefined;
    if (topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return refuse(response, 400, `topic ${topic}`);
    let payload: unknown;
    try {
      payload = JSON.parse(decryptAes128gcm(body, entry.keys).toString('utf8'));
    } catch (error) {
      return refuse(response, 400, `decryption: ${(error as Error).message}`);
    }
    const urgency = request.headers.urgency as string | undefined;
    entry.received.push({ subscriptionId: entry.id, payload, ttl, urgency, topic, arrivedAt, receivedAt: Date.now() });
    for (const wake of entry.waiters) wake();
    response.writeHead(201, { location: `${origin}/message/${randomUUID()}` }).end();
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => refuse(response, 500, String(error)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const entryOf = (id: string) => {
    const entry = entries.get(id);
    if (!entry) throw new Error(`no subscription ${id}`);
    return entry;
  };

  return {
    origin,
    subscribe(applicationServerKey) {
      const id = randomUUID();
      const keys = receiverKeys();
      entries.set(id, {
        id,
        keys,
        applicationServerKey,
        next: [],
        always: undefined,
        received: [],
        attempts: 0,
        waiters: new Set(),
      });
      return { id, endpoint: `${origin}/push/${id}`, keys: keys.json };
    },
    answerNext: (id, ...answers) => entryOf(id).next.push(...answers),
    answerAlways: (id, answer) => {
      entryOf(id).always = answer;
    },
    received: (id) => [...entryOf(id).received],
    attempts: (id) => entryOf(id).attempts,
    async waitFor(id, count = 1, timeoutMs = 5_000) {
      const entry = entryOf(id);
      if (entry.received.length >= count) return [...entry.received];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          entry.waiters.delete(check);
          reject(
            new Error(
              `push ${count} to ${id} did not come within ${timeoutMs} ms (${entry.received.length} came, ${entry.attempts} tried)`,
            ),
          );
        }, timeoutMs);
        function check() {
          if (entry.received.length < count) return;
          clearTimeout(timer);
          entry.waiters.delete(check);
          resolve();
        }
        entry.waiters.add(check);
      });
      return [...entry.received];
    },
    violations,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
