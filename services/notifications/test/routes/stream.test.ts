import { type EventEnvelope, notificationCreated, notificationsStreamsReplaced } from '@recipes/contracts';
import { type EventStreamClient, openEventStream, type StreamEvent } from '@recipes/testing/sse';
import { eventually } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  expectUnauthorized,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../support.js';

/**
 * The stream of docs/api.md §9 on one instance, listening for real: prompts reach it as its own queue
 * would bring them (`hear`), taken from what the service published.
 */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Streams'], { STREAM_KEEP_ALIVE_MS: '300' })),
);
afterAll(() => harness.close());

/** Relays what the service published to this instance's own queue, as the broker would. */
async function relay(): Promise<void> {
  for (const event of await harness.published()) await harness.hear(event);
}

/** The last `notification.created` relayed. */
let lastPrompt: EventEnvelope;

/** The `notification.created` the service sent since the last call. */
const announced = async () => (await harness.published()).filter((event) => event.type === notificationCreated.type);

/**
 * Mentions `user` once, as an event from the comments service, and relays the prompt it makes (one while
 * they have a stream open, none otherwise); the notification's id.
 */
async function mention(user: TestUser): Promise<string> {
  await harness.deliver(mentionEvent(ada, user));
  const created = await announced();
  expect(created.length).toBeLessThanOrEqual(1);
  if (created[0]) {
    lastPrompt = created[0];
    await harness.hear(lastPrompt);
  }
  return (await listed(user))[0]!.id;
}

const notifications = (client: EventStreamClient) => client.received.filter((event) => event.event === 'notification');
const isUnread = (count: number) => (event: StreamEvent) =>
  event.event === 'unread_count' && JSON.parse(event.data).count === count;

/** The stream ticket row of `user` (one per test user here). */
async function ticketOf(user: TestUser): Promise<{ stream_ended_at: Date | null }> {
  return (await harness.pool.query('SELECT stream_ended_at FROM stream_tickets WHERE recipient_id = $1', [user.id]))
    .rows[0];
}

async function listed(user: TestUser) {
  return (
    await harness.app.inject({ method: 'GET', url: '/api/notifications?limit=100', headers: bearer(user) })
  ).json().data as { id: string }[];
}

describe('GET /api/notifications/stream', () => {
  it('is prompted by notification.created only while its user has a stream open anywhere', async () => {
    const bob = await harness.knownUser('Bob_Announced');
    const openStreams = async () =>
      (await harness.pool.query('SELECT 1 FROM open_streams WHERE recipient_id = $1', [bob.id])).rowCount;
    await harness.deliver(mentionEvent(ada, bob));
    expect(await announced()).toEqual([]);

    const client = await harness.stream(bob);
    await client.next(isUnread(1));
    const seen = await mention(bob);
    expect(lastPrompt.data).toMatchObject({ id: seen, recipientId: bob.id, sequence: 2, unreadCount: 2 });
    await client.next((event) => event.id === seen);

    client.close();
    await eventually(async () => ((await openStreams()) === 0 ? true : undefined));
    await harness.deliver(mentionEvent(ada, bob));
    expect(await announced()).toEqual([]);
    expect(await listed(bob)).toHaveLength(3);
  });

  it('is prompted again when the event that stored a notification comes again (its prompt may not have gone)', async () => {
    const bob = await harness.knownUser('Bob_Again');
    const client = await harness.stream(bob);
    await client.next(isUnread(0));
    const event = mentionEvent(ada, bob);
    await harness.deliver(event);
    const [first, ...more] = await announced();
    expect(more).toEqual([]);
    await harness.deliver(event);
    const [again, ...moreAgain] = await announced();
    expect(moreAgain).toEqual([]);
    expect(again!.data).toEqual(first!.data);
    expect(again!.id).not.toBe(first!.id);
    expect(await listed(bob)).toHaveLength(1);
    client.close();
  });

  it('starts with retry and the unread count, then sends each new notification once, as the listing shows it', async () => {
    const bob = await harness.knownUser('Bob_Live');
    const client = await harness.stream(bob);
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await client.next(isUnread(0));
    expect(client.received[0]).toMatchObject({ event: 'retry', retry: 3000 });

    const first = await mention(bob);
    const sent = await client.next((event) => event.event === 'notification');
    expect(sent.id).toBe(first);
    expect(JSON.parse(sent.data)).toEqual((await listed(bob))[0]);
    // Its group too (docs/api.md §10.5), as the listing shows it.
    expect(JSON.parse(sent.data).groupKey).toMatch(/^mention_recipe_comment:[0-9a-f-]{36}$/);
    await client.next(isUnread(1));

    // The same prompt again, then a second notification: the first is not sent again.
    await harness.hear(lastPrompt);
    const second = await mention(bob);
    await client.next((event) => event.id === second);
    await client.next(isUnread(2));
    expect(notifications(client).map((event) => event.id)).toEqual([first, second]);
  });

  it('resumes after Last-Event-ID with exactly what was missed, oldest first, then goes on live', async () => {
    const cy = await harness.knownUser('Cy_Resume');
    const seen = await mention(cy);
    const missed = [await mention(cy), await mention(cy), await mention(cy)];

    const byHeader = await harness.stream(cy, { headers: { 'last-event-id': seen } });
    await byHeader.next(isUnread(4));
    expect(notifications(byHeader).map((event) => event.id)).toEqual(missed);

    const byQuery = await harness.stream(cy, { query: `?lastEventId=${missed[1]}` });
    await byQuery.next(isUnread(4));
    expect(notifications(byQuery).map((event) => event.id)).toEqual([missed[2]]);

    const live = await mention(cy);
    await byHeader.next((event) => event.id === live);
    await byQuery.next((event) => event.id === live);
    expect(notifications(byHeader).map((event) => event.id)).toEqual([...missed, live]);
    expect(notifications(byQuery).map((event) => event.id)).toEqual([missed[2], live]);
  });

  it('says reset instead of sending more than 1,000 missed notifications', async () => {
    const dee = await harness.knownUser('Dee_Reset');
    const seen = await mention(dee);
    await harness.pool.query(
      `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, created_at, source_event_id, sequence)
       SELECT gen_random_uuid(), $1, 'tag_recipe', $2, 'recipe', gen_random_uuid(), now(), gen_random_uuid(), 1 + n FROM generate_series(1, 1001) AS n`,
      [dee.id, ada.id],
    );
    await harness.pool.query(
      'UPDATE notification_counts SET total = total + 1001, unread = unread + 1001, last_sequence = 1002 WHERE recipient_id = $1',
      [dee.id],
    );

    const client = await harness.stream(dee, { headers: { 'last-event-id': seen } });
    await client.next((event) => event.event === 'reset');
    await client.next(isUnread(1002));
    expect(notifications(client)).toEqual([]);
    // And it goes on live from there.
    const live = await mention(dee);
    await client.next((event) => event.id === live);
  });

  it('refuses a Last-Event-ID that is not one of the caller’s notifications', async () => {
    const eve = await harness.knownUser('Eve_Resume');
    const hers = await mention(eve);
    for (const id of [hers, 'not-a-uuid', '0190f5a4-1c2d-7e3f-8a9b-000000000001']) {
      const response = await harness.app.inject({
        method: 'GET',
        url: '/api/notifications/stream',
        headers: { ...bearer(ada), 'last-event-id': id },
      });
      expectProblem(response, 400);
    }
  });

  it('sends the new unread count after notifications are marked read', async () => {
    const fay = await harness.knownUser('Fay_Reads');
    const id = await mention(fay);
    const client = await harness.stream(fay);
    await client.next(isUnread(1));
    const response = await harness.app.inject({
      method: 'PATCH',
      url: '/api/notifications/read',
      headers: bearer(fay),
      payload: { notificationIds: [id] },
    });
    expect(response.json().updated).toBe(1);
    await relay();
    await client.next(isUnread(0));
  });

  it('keeps an idle stream open with comment lines', async () => {
    const gus = await harness.knownUser('Gus_Idle');
    const client = await harness.stream(gus);
    await client.next((event) => event.comment === 'keep-alive', 2_000);
  });

  it('replaces the oldest of a user’s streams when a sixth opens', async () => {
    const hal = await harness.knownUser('Hal_Streams');
    const clients: EventStreamClient[] = [];
    for (let i = 0; i < 6; i += 1) {
      clients.push(await harness.stream(hal));
      await clients.at(-1)!.next(isUnread(0));
    }
    const replaced = (await harness.published()).filter((event) => event.type === notificationsStreamsReplaced.type);
    expect(replaced).toHaveLength(1);
    await harness.hear(replaced[0]!);
    await clients[0]!.next((event) => event.event === 'replaced');
    await clients[0]!.ended;
    // The other five stay: a notification reaches each.
    const id = await mention(hal);
    await Promise.all(clients.slice(1).map((client) => client.next((event) => event.id === id)));
  });
});

describe('stream tickets', () => {
  it('opens a stream once with a ticket, never twice, and never with a forged one or none', async () => {
    const ivy = await harness.knownUser('Ivy_Ticket');
    const issued = await harness.app.inject({
      method: 'POST',
      url: '/api/notifications/stream-tickets',
      headers: bearer(ivy),
    });
    expect(issued.statusCode).toBe(201);
    const { ticket, expiresIn } = issued.json();
    expect(expiresIn).toBe(60);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{40,}$/);

    const client = await harness.stream(undefined, { query: `?ticket=${ticket}` });
    expect(client.status).toBe(200);
    const id = await mention(ivy);
    await client.next((event) => event.id === id);

    // A used or forged ticket is a token refused; none at all, a token missing (docs/api.md §2).
    for (const [query, reason] of [
      [`?ticket=${ticket}`, 'TOKEN_INVALID'],
      ['?ticket=forged', 'TOKEN_INVALID'],
      ['', 'TOKEN_MISSING'],
    ] as const) {
      expectUnauthorized(await harness.app.inject({ method: 'GET', url: `/api/notifications/stream${query}` }), reason);
    }
    expectUnauthorized(
      await harness.app.inject({ method: 'POST', url: '/api/notifications/stream-tickets' }),
      'TOKEN_MISSING',
    );
  });

  it(
    'lets a used ticket open its stream again only to resume it, as EventSource ' +
      'reconnects: naming an event of that stream in Last-Event-ID, soon after it ended',
    async () => {
      const kay = await harness.knownUser('Kay_Reconnects');
      const lee = await harness.knownUser('Lee_Other');
      const leesOwn = await mention(lee);
      // Kay's, but from before the ticket's stream: an id that may have been seen elsewhere proves nothing.
      const older = await mention(kay);
      const newest = await mention(kay);
      const { ticket } = (
        await harness.app.inject({ method: 'POST', url: '/api/notifications/stream-tickets', headers: bearer(kay) })
      ).json();
      const first = await harness.stream(undefined, { query: `?ticket=${ticket}` });
      expect((await first.next(isUnread(2))).id).toBe(newest);
      const seen = await mention(kay);
      await first.next((event) => event.id === seen);
      first.close();
      const missed = await mention(kay);
      const ended = () => eventually(async () => ((await ticketOf(kay)).stream_ended_at ? true : undefined));
      await ended();

      const resumed = await harness.stream(undefined, {
        query: `?ticket=${ticket}`,
        headers: { 'last-event-id': seen },
      });
      expect(resumed.status).toBe(200);
      await resumed.next((event) => event.id === missed);
      expect(notifications(resumed).map((event) => event.id)).toEqual([missed]);
      expect((await ticketOf(kay)).stream_ended_at).toBeNull();
      resumed.close();
      await ended();
      // The id the stream's first unread count named, before any notification came on it, resumes too.
      const fromFirstFrame = await harness.stream(undefined, {
        query: `?ticket=${ticket}`,
        headers: { 'last-event-id': newest },
      });
      expect(fromFirstFrame.status).toBe(200);
      await fromFirstFrame.next((event) => event.id === missed);
      fromFirstFrame.close();
      await ended();

      /** The status a reopening of the stream with the ticket gets (a stream that opens is closed at once). */
      const statusOf = async (query: string, headers: Record<string, string> = {}) => {
        const client = await harness.stream(undefined, { query: `?ticket=${ticket}${query}`, headers });
        client.close();
        return client.status;
      };
      expect({
        anotherUsersId: await statusOf('', { 'last-event-id': leesOwn }),
        anIdFromBeforeTheStream: await statusOf('', { 'last-event-id': older }),
        notAnId: await statusOf('', { 'last-event-id': 'not-a-uuid' }),
        // The proof is the header EventSource sends, never a value in the URL.
        theIdInTheUrl: await statusOf(`&lastEventId=${seen}`),
        noId: await statusOf(''),
      }).toEqual({ anotherUsersId: 401, anIdFromBeforeTheStream: 401, notAnId: 401, theIdInTheUrl: 401, noId: 401 });

      // Only soon after the stream ended...
      await harness.pool.query(
        `UPDATE stream_tickets SET stream_ended_at = now() - interval '121 seconds' WHERE recipient_id = $1`,
        [kay.id],
      );
      expect(await statusOf('', { 'last-event-id': seen })).toBe(401);
      // ... and, while it is open or its instance died without saying, for 24 hours after the first use.
      await harness.pool.query(`UPDATE stream_tickets SET stream_ended_at = NULL WHERE recipient_id = $1`, [kay.id]);
      expect(await statusOf('', { 'last-event-id': seen })).toBe(200);
      await ended();
      await harness.pool.query(
        `UPDATE stream_tickets SET stream_ended_at = NULL, used_at = now() - interval '25 hours' WHERE recipient_id = $1`,
        [kay.id],
      );
      expect(await statusOf('', { 'last-event-id': seen })).toBe(401);
    },
  );

  it('names the newest notification in the first unread count, so that a client cut off before the next one resumes from there', async () => {
    const max = await harness.knownUser('Max_FirstId');
    await mention(max);
    const newest = await mention(max);
    const client = await harness.stream(max);
    const first = await client.next(isUnread(2));
    expect(first.id).toBe(newest);
  });

  it('keeps at most 10 unused tickets per user: one more revokes the oldest, and tickets past any use go', async () => {
    const una = await harness.knownUser('Una_Tickets');
    const take = async () =>
      (
        await harness.app.inject({ method: 'POST', url: '/api/notifications/stream-tickets', headers: bearer(una) })
      ).json().ticket as string;
    // Tickets that can no longer open or resume anything: expired unused, used a day ago, and used by a
    // stream that ended more than 2 minutes ago.
    await harness.pool.query(
      `INSERT INTO stream_tickets (ticket_hash, recipient_id, expires_at, used_at, resume_from, stream_ended_at) VALUES
         (uuid_send(gen_random_uuid()), $1, now() - interval '1 second', NULL, NULL, NULL),
         (uuid_send(gen_random_uuid()), $1, now() - interval '23 hours', now() - interval '25 hours', 1, NULL),
         (uuid_send(gen_random_uuid()), $1, now() - interval '1 hour', now() - interval '1 hour', 1, now() - interval '121 seconds')`,
      [una.id],
    );
    const tickets = [];
    for (let n = 0; n < 12; n += 1) tickets.push(await take());
    const { rows } = await harness.pool.query(
      'SELECT count(*)::int AS kept, count(*) FILTER (WHERE used_at IS NULL AND expires_at > now())::int AS usable FROM stream_tickets WHERE recipient_id = $1',
      [una.id],
    );
    expect(rows[0]).toEqual({ kept: 10, usable: 10 });

    for (const revoked of tickets.slice(0, 2)) {
      expectProblem(
        await harness.app.inject({ method: 'GET', url: `/api/notifications/stream?ticket=${revoked}` }),
        401,
      );
    }
    const oldestKept = await harness.stream(undefined, { query: `?ticket=${tickets[2]}` });
    expect(oldestKept.status).toBe(200);
    await oldestKept.next(isUnread(0));
    oldestKept.close();
  });

  it('refuses an expired ticket', async () => {
    const jo = await harness.knownUser('Jo_Ticket');
    const { ticket } = (
      await harness.app.inject({ method: 'POST', url: '/api/notifications/stream-tickets', headers: bearer(jo) })
    ).json();
    await harness.pool.query(`UPDATE stream_tickets SET expires_at = now() - interval '1 second'`);
    expectUnauthorized(
      await harness.app.inject({ method: 'GET', url: `/api/notifications/stream?ticket=${ticket}` }),
      'TOKEN_INVALID',
    );
  });
});

describe('shutdown', () => {
  it('ends every open stream as the app closes', async () => {
    const another = await harness.anotherApp({});
    const anotherBase = await another.listen({ host: '127.0.0.1', port: 0 });
    const kim = await harness.knownUser('Kim_Shutdown');
    const client = await openEventStream(`${anotherBase}/api/notifications/stream`, bearer(kim));
    await client.next(isUnread(0));
    const closing = another.close();
    await client.ended;
    expect(client.received.at(-1)).toMatchObject({ event: 'unread_count' });
    await closing;
  });

  // Last in the file: this instance accepts no stream after it.
  it('ends at once, with the delay before reconnecting, a stream opened once shutdown has started', async () => {
    const lou = await harness.knownUser('Lou_Late');
    // What the app's shutdown hook runs first (`onShutdown`, libs/http), before connections drain.
    harness.parts.streams.endAll();
    const client = await harness.stream(lou);
    expect(client.status).toBe(200);
    await client.ended;
    expect(client.received).toEqual([{ event: 'retry', data: '', retry: 3000 }]);
    expect(harness.parts.streams.hub.size).toBe(0);
  });
});
