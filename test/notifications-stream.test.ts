import { type EventStreamClient, openEventStream, type StreamEvent } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { mergedDocument } from '../scripts/openapi.mjs';
import { unlimited } from './faults/support.js';
import { type OpenApiDocument, streamEventChecker } from './support/conformance.js';
import { jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';

/**
 * The notification stream (docs/api.md §9) as clients meet it: two gateways, two instances of every
 * service, events through the real broker. A stream held by one notifications instance gets what the
 * other created; a stream resumed through the other gateway gets exactly what it missed; a gateway
 * shutting down ends its streams cleanly.
 */
let system: StartedSystem;
const streams: EventStreamClient[] = [];

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_streams',
    portOffset: 4400,
    replicas: 2,
    gateways: 2,
    // Eleven backend processes and two gateways share PostgreSQL's connections with the rest of the machine.
    env: { ...unlimited, DATABASE_POOL_MAX: '4' },
  });
}, 120_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await system?.stop();
});

const gateway = (instance: number) => system.urlOf('gateway', instance);
const api = (instance: number) => jsonClient(`${gateway(instance)}/api`);

interface Account {
  user: { id: string; username: string };
  token: string;
}

async function register(username: string): Promise<Account> {
  const response = await api(1)('POST', '/auth/register', { username, password: 'correct horse' });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function stream(instance: number, query: string, headers: Record<string, string> = {}) {
  const client = await openEventStream(`${gateway(instance)}/api/notifications/stream${query}`, headers);
  streams.push(client);
  return client;
}

const bearer = (account: Account) => ({ authorization: `Bearer ${account.token}` });
const ids = (client: EventStreamClient) =>
  client.received.filter((event) => event.event === 'notification').map((event) => event.id);
const isUnread = (count: number) => (event: StreamEvent) =>
  event.event === 'unread_count' && JSON.parse(event.data).count === count;

describe('the notification stream through the gateways', () => {
  let ada: Account;
  let bob: Account;
  let recipeId: string;
  /** Every notification of bob's, oldest first, as the streams must show them. */
  const created: string[] = [];

  /**
   * Ada mentions bob through the second gateway; resolves once `watching` has the notification, with how long it took.
   */
  async function mention(watching: EventStreamClient[]): Promise<number> {
    const from = watching.map((client) => client.received.length);
    const started = performance.now();
    const response = await api(1)(
      'POST',
      `/recipes/${recipeId}/comments`,
      { content: `@${bob.user.username} look` },
      ada.token,
    );
    expect(response.status).toBe(201);
    const events = await Promise.all(
      watching.map((client, i) => client.next((event) => event.event === 'notification', 5_000, from[i])),
    );
    const elapsed = performance.now() - started;
    expect(new Set(events.map((event) => event.id)).size).toBe(1);
    created.push(events[0]!.id!);
    return elapsed;
  }

  beforeAll(async () => {
    ada = await register('stream_ada');
    bob = await register('stream_bob');
    const recipe = await api(1)(
      'POST',
      '/recipes',
      { title: 'Streams', cameraModel: 'X100V', filmSimulation: 'Acros' },
      ada.token,
    );
    recipeId = recipe.body.recipe.id;
  });

  it('gives each stream every notification, once and in order, whichever notifications instance created it', async () => {
    // Two streams opened one after the other through the first gateway: it sends them to the two instances in turn.
    const first = await stream(0, '', bearer(bob));
    const second = await stream(0, '', bearer(bob));
    for (const client of [first, second]) {
      expect(client.status).toBe(200);
      expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await client.next(isUnread(0));
    }
    const latencies: number[] = [];
    for (let i = 0; i < 10; i += 1) latencies.push(await mention([first, second]));
    await first.next(isUnread(10));
    await second.next(isUnread(10));
    expect(ids(first)).toEqual(created);
    expect(ids(second)).toEqual(created);
    // Within one second of the comment that caused it (docs/api.md §9).
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    first.close();
  });

  it('resumes through the other gateway with a ticket and Last-Event-ID: exactly what was missed, then live', async () => {
    const lastSeen = created.at(-1)!;
    const watcher = await stream(1, '', bearer(bob));
    await watcher.next(isUnread(10));
    const missed: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      await mention([watcher]);
      missed.push(created.at(-1)!);
    }

    const ticket = await api(1)('POST', '/notifications/stream-tickets', undefined, bob.token);
    expect(ticket.status).toBe(201);
    const resumed = await stream(1, `?ticket=${ticket.body.ticket}&lastEventId=${lastSeen}`);
    await resumed.next(isUnread(13));
    expect(ids(resumed)).toEqual(missed);
    await mention([resumed, watcher]);
    expect(ids(resumed)).toEqual([...missed, created.at(-1)]);

    // The ticket was used up; an id that is not bob's is refused.
    const again = await fetch(`${gateway(1)}/api/notifications/stream?ticket=${ticket.body.ticket}`);
    expect(again.status).toBe(401);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const foreign = await fetch(`${gateway(1)}/api/notifications/stream`, {
      headers: { ...bearer(ada), 'last-event-id': lastSeen },
    });
    expect(foreign.status).toBe(400);
  });

  it('ends its streams cleanly when a gateway shuts down, and the client resumes through the other', async () => {
    const held = streams[1]!;
    const started = performance.now();
    const stopped = system.process('gateway', 0)!.kill('SIGTERM');
    await held.ended;
    // As shutdown starts, not once the gateway has drained its other connections.
    expect(performance.now() - started).toBeLessThan(1_000);
    // And it exits by itself, not killed by its shutdown timeout (10 s), though its clients hold spare connections.
    expect(await stopped).toEqual({ code: 0, signal: null });
    expect(performance.now() - started).toBeLessThan(8_000);

    await mention([streams.at(-1)!]);
    const resumed = await stream(1, '', { ...bearer(bob), 'last-event-id': ids(held).at(-1)! });
    await resumed.next((event) => event.id === created.at(-1));
    expect([...ids(held), ...ids(resumed)]).toEqual(created);
  });
});

describe('the events of the stream, against the published document', () => {
  it('is each one a NotificationStreamEvent, of every kind a stream sends here', async () => {
    const check = streamEventChecker((await mergedDocument()) as OpenApiDocument);
    // The check can fail: a count below zero, an event the document does not name, data that is not JSON.
    expect(check({ event: 'unread_count', data: '{"count":-1}' })).not.toEqual([]);
    expect(check({ event: 'unread', data: '{"count":1}' })).not.toEqual([]);
    expect(check({ event: 'notification', data: '{' })).not.toEqual([]);

    const author = await register('events_author');
    const reader = await register('events_reader');
    const recipe = await api(1)(
      'POST',
      '/recipes',
      { title: 'Events', cameraModel: 'X100V', filmSimulation: 'Classic Chrome' },
      author.token,
    );
    expect(recipe.status).toBe(201);
    const first = await stream(1, '', bearer(reader));
    await first.next(isUnread(0));
    // notification and unread_count, then retracted as the comment is deleted.
    const comment = await api(1)(
      'POST',
      `/recipes/${recipe.body.recipe.id}/comments`,
      { content: `@${reader.user.username} see` },
      author.token,
    );
    expect(comment.status).toBe(201);
    await first.next((event) => event.event === 'notification');
    const deleted = await api(1)(
      'DELETE',
      `/recipes/${recipe.body.recipe.id}/comments/${comment.body.comment.id}`,
      undefined,
      author.token,
    );
    expect(deleted.status).toBe(200);
    await first.next((event) => event.event === 'retracted');
    // A sixth stream of the reader's replaces the first; signing out ends the other five with session_ended.
    const others: EventStreamClient[] = [];
    for (let i = 0; i < 5; i += 1) {
      others.push(await stream(1, '', bearer(reader)));
      await others.at(-1)!.next(isUnread(0));
    }
    await first.next((event) => event.event === 'replaced');
    expect((await api(1)('POST', '/auth/logout', undefined, reader.token)).status).toBe(200);
    await Promise.all(others.map((client) => client.next((event) => event.event === 'session_ended')));

    const sent = streams.flatMap((client) => client.received);
    expect(new Set(sent.map((event) => event.event))).toEqual(
      new Set(['', 'retry', 'notification', 'unread_count', 'retracted', 'replaced', 'session_ended']),
    );
    expect(sent.flatMap(check)).toEqual([]);
  });
});
