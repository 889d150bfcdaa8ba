import { createServer, type Server } from 'node:net';
import { type App, createApp, NOT_TAKEN_HEADER, stopTaking } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Echoed, startGateway, startUpstream, type Upstream, unusedUrl } from './support/servers.js';

/**
 * A service with several instances, one of which is not listening (stopped, or not started yet): the
 * gateway sends the request on to the next instance, as the refused one never saw it. A request an
 * instance may have received is never sent twice.
 */
let content: Upstream;
let comments: Upstream;
let gateway: App;
let resetter: Server;
let resetterHits = 0;
let collections: Upstream;
let stopping: App;
let stoppingSeen = { taken: 0, notTaken: 0 };
/** The one instance of a service that is restarting: not listening at first. */
let restarting: string;
let restarted: App | undefined;

/** An instance of a service (our own app) that has begun to stop: it answers every request "not taken". */
async function startStopping(): Promise<string> {
  stopping = await createApp({ title: 'stopping', logger: createLogger({ service: 'test', level: 'silent' }) });
  stopping.all('/api/*', async () => {
    stoppingSeen.taken += 1;
    return {};
  });
  stopping.addHook('onResponse', async (_request, reply) => {
    if (reply.getHeader(NOT_TAKEN_HEADER) !== undefined) stoppingSeen.notTaken += 1;
  });
  const url = await stopping.listen({ host: '127.0.0.1', port: 0 });
  stopTaking(stopping);
  return url;
}

/** Reads the request, then drops the connection without answering: the service may have acted on it. */
async function startResetter(): Promise<string> {
  resetter = createServer((socket) => {
    socket.once('data', () => {
      resetterHits += 1;
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => resetter.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(resetter.address() as { port: number }).port}`;
}

beforeAll(async () => {
  [content, comments, collections] = await Promise.all([
    startUpstream('content'),
    startUpstream('comments'),
    startUpstream('collections'),
  ]);
  const [stoppedA, stoppedB, stoppedC] = [await unusedUrl(), await unusedUrl(), await unusedUrl()];
  restarting = await unusedUrl();
  gateway = await startGateway({
    USERS_URL: `${stoppedA},${stoppedB}`,
    CONTENT_URL: `${stoppedC},${content.url}`,
    COMMENTS_URL: `${await startResetter()},${comments.url}`,
    COLLECTIONS_URL: `${await startStopping()},${collections.url}`,
    NOTIFICATIONS_URL: restarting,
    RATE_LIMIT_ENABLED: 'false',
    UPSTREAM_RESTART_WAIT_MS: '3000',
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([content, comments, collections].map((upstream) => upstream?.close()));
  await stopping?.close();
  await restarted?.close();
  await new Promise((resolve) => resetter?.close(resolve));
});

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

describe('an instance that refuses connections', () => {
  it('is passed over: every request, reads and writes with a body, reaches the instance that listens', async () => {
    const before = content.hits;
    const payload = JSON.stringify({ title: 'Failover', note: 'ünïcode' });
    // Round-robin starts each request at a different instance, so half of them begin at the stopped one.
    for (let i = 0; i < 4; i += 1) {
      const write = await gateway.inject({
        method: 'POST',
        url: '/api/recipes',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(write.statusCode).toBe(200);
      const echoed = write.json<Echoed>();
      expect(echoed).toMatchObject({ server: 'content', method: 'POST', url: '/api/recipes' });
      expect(Buffer.from(echoed.body!, 'base64').toString()).toBe(payload);

      const read = await gateway.inject({ method: 'GET', url: `/api/recipes/${id}?fields=all` });
      expect(read.statusCode).toBe(200);
      expect(read.json<Echoed>()).toMatchObject({
        server: 'content',
        method: 'GET',
        url: `/api/recipes/${id}?fields=all`,
      });
    }
    expect(content.hits).toBe(before + 8);
  });

  it('waits for the only instance of a service while it restarts, and reaches it once it listens', async () => {
    const waiting = gateway.inject({ method: 'POST', url: '/api/notifications/read', payload: {} });
    await new Promise((resolve) => setTimeout(resolve, 500));
    restarted = await createApp({ title: 'restarted', logger: createLogger({ service: 'test', level: 'silent' }) });
    restarted.all('/api/*', async () => ({ restarted: true }));
    await restarted.listen({ host: '127.0.0.1', port: Number(new URL(restarting).port) });
    const response = await waiting;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ restarted: true });
  });

  it('gives 503 with Retry-After when every instance refuses past the restart wait', async () => {
    const response = await gateway.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('requests that waited out the restart of the only instance of a service', () => {
  it('come back through their lane: none refused, and never more in flight than the lane admits', async () => {
    const LIMIT = 16;
    const address = await unusedUrl();
    const waiting = await startGateway({
      COMMENTS_URL: address,
      RATE_LIMIT_ENABLED: 'false',
      UPSTREAM_RESTART_WAIT_MS: '10000',
      ADMISSION_INITIAL_LIMIT: String(LIMIT),
      ADMISSION_MIN_LIMIT: String(LIMIT),
      ADMISSION_MAX_LIMIT: String(LIMIT),
      // The test's own burst holds the loop up now and then: what is counted is the lanes, not the loop guard.
      ADMISSION_LOOP_DELAY_MS: '500',
    });
    let service: Upstream | undefined;
    try {
      const post = () =>
        waiting.inject({
          method: 'POST',
          url: `/api/recipes/${id}/comments`,
          headers: { 'content-type': 'application/json' },
          payload: '{"body":"waited"}',
        });
      // 150 wait for the restart, arriving over 600 ms; as many more arrive while the herd drains.
      const answers: ReturnType<typeof post>[] = [];
      const arrive = async (count: number) => {
        for (let i = 0; i < count; i += 1) {
          answers.push(post());
          if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 40));
        }
      };
      await arrive(150);
      service = await startUpstream('comments', { port: Number(new URL(address).port), delayMs: 20 });
      await arrive(150);
      const statuses = (await Promise.all(answers)).map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(service.hits).toBe(300);
      expect(service.peakInFlight).toBeLessThanOrEqual(LIMIT);
    } finally {
      await waiting.close();
      await service?.close();
    }
  });
});

describe('an instance that took the request and then failed', () => {
  it('is not retried elsewhere when the request may act twice: it may have had its effect', async () => {
    const [hitsBefore, resetterBefore] = [comments.hits, resetterHits];
    const responses = [];
    for (let i = 0; i < 2; i += 1) {
      responses.push(
        await gateway.inject({
          method: 'POST',
          url: `/api/posts/${id}/comments`,
          headers: { 'content-type': 'application/json' },
          payload: '{"content":"hi"}',
        }),
      );
    }
    // One of the two began at the dropping instance: it fails, and the other instance never sees it.
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 503]);
    expect(resetterHits - resetterBefore).toBe(1);
    expect(comments.hits - hitsBefore).toBe(1);
  });

  it('is retried on the next instance when the request acts once however often it is sent', async () => {
    const payload = '{"content":"hi"}';
    const json = { 'content-type': 'application/json' };
    const requests = [
      { method: 'GET' as const, url: `/api/posts/${id}/comments` },
      { method: 'DELETE' as const, url: `/api/posts/${id}/comments/${id}` },
      { method: 'PUT' as const, url: `/api/posts/${id}/comments/${id}`, headers: json, payload },
      {
        method: 'POST' as const,
        url: `/api/posts/${id}/comments`,
        headers: { ...json, 'idempotency-key': 'failover-1' },
        payload,
      },
    ];
    for (const request of requests) {
      // Twice each, so that one of the two begins at the dropping instance whichever is next in turn.
      for (let i = 0; i < 2; i += 1) {
        const [hitsBefore, resetterBefore] = [comments.hits, resetterHits];
        const response = await gateway.inject(request);
        expect(response.statusCode, `${request.method} ${request.url}`).toBe(200);
        expect(response.json<Echoed>()).toMatchObject({ server: 'comments', method: request.method });
        if (request.payload) expect(Buffer.from(response.json<Echoed>().body!, 'base64').toString()).toBe(payload);
        expect(comments.hits - hitsBefore).toBe(1);
        expect(resetterHits - resetterBefore).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('an instance that is stopping', () => {
  it('has any request it did not take, a POST without a key too, sent to the next, and is then tried last', async () => {
    stoppingSeen = { taken: 0, notTaken: 0 };
    const before = collections.hits;
    for (let i = 0; i < 4; i += 1) {
      const response = await gateway.inject({
        method: 'POST',
        url: '/api/collections',
        headers: { 'content-type': 'application/json' },
        payload: '{"name":"Stopping"}',
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers[NOT_TAKEN_HEADER]).toBeUndefined();
      expect(response.json<Echoed>()).toMatchObject({ server: 'collections', method: 'POST' });
    }
    expect(collections.hits - before).toBe(4);
    // Round-robin would begin half of them at the stopping instance; once it said so, it is tried last.
    expect(stoppingSeen).toEqual({ taken: 0, notTaken: 1 });
  });
});
