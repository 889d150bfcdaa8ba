import { type EventStreamClient, openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionFlow } from './client/client.js';
import { unlimited } from './faults/support.js';
import { withDatabase } from './support/database.js';
import { expectUnauthorized, jsonClient } from './support/http.js';
import { startTestSystem, type TestSystem } from './support/system.js';

/**
 * Sessions that last and can end (docs/api.md §11.1), tried as an app would, through the gateway: log in
 * on two devices, refresh on both, log out one. Its access token is refused by every service within 1 s
 * of the logout, its stream says why and closes, while the other device goes on; a replayed refresh token
 * ends its family.
 */
let system: TestSystem;
const streams: EventStreamClient[] = [];

beforeAll(async () => {
  system = await startTestSystem({ name: 'recipes_sessions', portOffset: 8100, env: { ...unlimited } });
}, 120_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await system?.stop();
});

const gateway = () => system.urlOf('gateway');
const api = () => jsonClient(`${gateway()}/api`);

interface Tokens {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

async function stream(query: string, headers: Record<string, string> = {}) {
  const client = await openEventStream(`${gateway()}/api/notifications/stream${query}`, headers);
  streams.push(client);
  return client;
}

async function refreshed(refreshToken: string): Promise<Tokens> {
  const response = await api()('POST', '/auth/refresh', { refreshToken });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('two devices, one logged out', () => {
  let recipeId: string;
  let collectionId: string;
  let phone: Tokens;
  let laptop: Tokens;

  /** A read of each service that checks the token it is sent. */
  const reads = () => ({
    users: '/users/me',
    content: `/recipes/${recipeId}`,
    comments: `/recipes/${recipeId}/comments`,
    collections: `/collections/${collectionId}`,
    notifications: '/notifications/unread-count',
  });

  beforeAll(async () => {
    const registered = await api()('POST', '/auth/register', { username: 'sessions_ada', password: 'correct horse' });
    expect(registered.status).toBe(201);
    const login = async (device: string) => {
      const response = await api()(
        'POST',
        '/auth/login',
        { username: 'sessions_ada', password: 'correct horse' },
        undefined,
        { 'user-agent': device },
      );
      expect(response.status).toBe(200);
      return response.body as Tokens;
    };
    // Each device refreshes once, as an app does when its access token nears its end.
    phone = await refreshed((await login('Phone/1')).refreshToken);
    laptop = await refreshed((await login('Laptop/1')).refreshToken);
    const recipe = await api()(
      'POST',
      '/recipes',
      { title: 'Sessions', cameraModel: 'X100V', filmSimulation: 'Acros' },
      laptop.token,
    );
    expect(recipe.status).toBe(201);
    recipeId = recipe.body.recipe.id;
    const collection = await api()('POST', '/collections', { name: 'Sessions' }, laptop.token);
    expect(collection.status).toBe(201);
    collectionId = collection.body.collection.id;
  });

  it('lists both devices’ sessions', async () => {
    const response = await api()('GET', '/auth/sessions', undefined, laptop.token);
    expect(response.status).toBe(200);
    const agents = (response.body.sessions as { userAgent: string; current: boolean }[]).map(
      ({ userAgent, current }) => [userAgent, current],
    );
    expect(agents).toEqual(
      expect.arrayContaining([
        ['Phone/1', false],
        ['Laptop/1', true],
      ]),
    );
  });

  it('refuses the logged-out device’s token on every service within 1 s, and closes its streams, while the other device goes on', async () => {
    for (const path of Object.values(reads())) {
      expect((await api()('GET', path, undefined, phone.token)).status, path).toBe(200);
    }
    const ticket = await api()('POST', '/notifications/stream-tickets', undefined, phone.token);
    expect(ticket.status).toBe(201);
    const byToken = await stream('', { authorization: `Bearer ${phone.token}` });
    const byTicket = await stream(`?ticket=${encodeURIComponent(ticket.body.ticket)}`);
    const laptopStream = await stream('', { authorization: `Bearer ${laptop.token}` });
    for (const client of [byToken, byTicket, laptopStream])
      await client.next((event) => event.event === 'unread_count', 5_000);

    const from = [byToken, byTicket].map((client) => client.received.length);
    const loggedOut = await api()('POST', '/auth/logout', undefined, phone.token);
    expect(loggedOut.status).toBe(200);
    const endedAt = performance.now();
    // When each stream says its session ended, counted from the logout's answer as the refusals are.
    const told = Promise.all(
      [byToken, byTicket].map(async (client, i) => {
        const said = await client.next((event) => event.event === 'session_ended', 2_000, from[i]);
        return { said, afterMs: performance.now() - endedAt };
      }),
    );

    const refusedAfter = Object.fromEntries(
      await Promise.all(
        Object.entries(reads()).map(async ([service, path]) => {
          for (;;) {
            const { status } = await api()('GET', path, undefined, phone.token);
            if (status === 401) return [service, performance.now() - endedAt] as const;
            expect(status, `${service} ${path}`).toBe(200);
            if (performance.now() - endedAt > 3_000) return [service, Infinity] as const;
          }
        }),
      ),
    );
    for (const [service, ms] of Object.entries(refusedAfter))
      expect(ms, `${service} refused after ${ms} ms`).toBeLessThan(1_000);
    // Each service says why, with its challenge, through the gateway (docs/api.md §2).
    for (const [service, path] of Object.entries(reads()))
      expectUnauthorized((await api()('GET', path, undefined, phone.token)).raw, 'SESSION_ENDED', service);
    // The stream's own refusals too, through the gateway's stream proxy.
    expectUnauthorized((await api()('GET', '/notifications/stream', undefined, phone.token)).raw, 'SESSION_ENDED');
    expectUnauthorized((await api()('GET', '/notifications/stream')).raw, 'TOKEN_MISSING');

    for (const { said, afterMs } of await told) {
      expect(JSON.parse(said.data)).toEqual({ reason: 'logout' });
      expect(afterMs).toBeLessThan(1_000);
    }
    await Promise.all([byToken.ended, byTicket.ended]);

    for (const [service, path] of Object.entries(reads())) {
      expect((await api()('GET', path, undefined, laptop.token)).status, service).toBe(200);
    }
    expectUnauthorized(
      (await api()('POST', '/auth/refresh', { refreshToken: phone.refreshToken })).raw,
      'SESSION_ENDED',
    );
    laptop = await refreshed(laptop.refreshToken);
    // The laptop's stream is still open: a mention reaches it, and nothing ended it before.
    const bob = await api()('POST', '/auth/register', { username: 'sessions_bob', password: 'correct horse' });
    const mentioned = await api()(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: '@sessions_ada look' },
      bob.body.token,
    );
    expect(mentioned.status).toBe(201);
    await laptopStream.next((event) => event.event === 'notification', 5_000);
    expect(laptopStream.received.some((event) => event.event === 'session_ended')).toBe(false);
    expect((await api()('GET', '/notifications/unread-count', undefined, laptop.token)).status).toBe(200);
    // A ticket the ended session took opens nothing.
    const stale = await stream(`?ticket=${encodeURIComponent(ticket.body.ticket)}`);
    expect(stale.status).toBe(401);
  });

  it('ends a family whose refresh token is replayed after the grace', async () => {
    const login = await api()('POST', '/auth/login', { username: 'sessions_ada', password: 'correct horse' });
    const first = login.body as Tokens;
    const second = await refreshed(first.refreshToken);
    // Two tabs at once: the same answer.
    expect(await refreshed(first.refreshToken)).toEqual(second);
    const third = await refreshed(second.refreshToken);
    expect((await api()('GET', '/users/me', undefined, third.token)).status).toBe(200);
    // As if 11 s had passed since each refresh token was first used.
    const sid = JSON.parse(Buffer.from(first.token.split('.')[1]!, 'base64url').toString()).sid as string;
    await withDatabase(system.databaseUrl, (db) =>
      db.query(`UPDATE users.refresh_tokens SET issued_at = issued_at - interval '11 s' WHERE session_id = $1`, [sid]),
    );
    // The first token again, later than the grace allows: the whole session ends, its latest tokens too.
    const refresh = async (refreshToken: string) => (await api()('POST', '/auth/refresh', { refreshToken })).raw;
    expectUnauthorized(await refresh(first.refreshToken), 'REFRESH_TOKEN_REUSED');
    expectUnauthorized(await refresh(third.refreshToken), 'REFRESH_TOKEN_REUSED');
    expectUnauthorized((await api()('GET', '/users/me', undefined, third.token)).raw, 'SESSION_ENDED');
  });

  it('works from the client generated from the API document', async () => {
    const flow = await sessionFlow(gateway(), 'sessions_ada', 'correct horse');
    expect(flow).toMatchObject({ expiresIn: 900, current: expect.any(String), refreshAfterLogout: 401 });
    expect(flow.sessions).toBeGreaterThanOrEqual(2);
  });
});
