import { createEvent, newId, type SessionEnded, userSessionEnded } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectProblem,
  expectUnauthorized,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../support.js';

/**
 * Sessions that end (docs/api.md §11.1) as the notifications service sees them: it refuses their tokens,
 * closes the streams they opened, by token or by ticket, and no longer opens one by their tickets; what
 * its queue brought it holds through a restart.
 */
let harness: NotificationsHarness, ada: TestUser, bob: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada, bob],
    } = await notificationsHarnessWith(['Ada_Sessions', 'Bob_Sessions'])),
);
afterAll(() => harness.close());

const now = () => Math.floor(Date.now() / 1000);
/** A user's token of a new session of theirs: the token and the session's id. */
function session(user: TestUser, issuedAt = now()) {
  const id = newId();
  return { id, token: harness.tokenFor({ id: user.id, username: user.username, sessionId: id, issuedAt }) };
}
const ended = (
  user: TestUser,
  sessionIds: string[],
  notBefore: string | null = null,
  reason: SessionEnded['reason'] = notBefore ? 'logout_all' : 'logout',
) => {
  const data: SessionEnded = {
    userId: user.id,
    sessionIds,
    notBefore,
    reason,
    endedAt: new Date().toISOString(),
    tokensExpireBy: new Date(Date.now() + 3_600_000).toISOString(),
  };
  return createEvent(userSessionEnded, data, { producer: 'users', correlationId: 'test-session-end' });
};
const list = (token: string, app = harness.app) =>
  app.inject({ method: 'GET', url: '/api/notifications', headers: { authorization: `Bearer ${token}` } });
const ticketOf = async (token: string) =>
  (
    await harness.app.inject({
      method: 'POST',
      url: '/api/notifications/stream-tickets',
      headers: { authorization: `Bearer ${token}` },
    })
  ).json().ticket as string;
/**
 * Stores a notification for `user` and prompts the streams, as the broker would: a barrier for "nothing else happened".
 */
async function notify(user: TestUser) {
  await harness.deliver(mentionEvent(bob, user));
  for (const event of await harness.published()) await harness.hear(event);
}

describe('an ended session’s tokens', () => {
  it('are refused with 401 once the end is heard; the user’s other sessions and tokens from before sessions are not', async () => {
    const phone = session(ada);
    const laptop = session(ada);
    expect((await list(phone.token)).statusCode).toBe(200);
    await harness.hear(ended(ada, [phone.id]));
    expectUnauthorized(await list(phone.token), 'SESSION_ENDED');
    expect((await list(laptop.token)).statusCode).toBe(200);
    expect((await list(ada.token)).statusCode).toBe(200);
  });

  it('are refused as of a deleted account when the account’s deletion ended them, here and after a restart', async () => {
    const gone = session(bob);
    await harness.deliver(ended(bob, [gone.id], null, 'account_deleted'));
    expectUnauthorized(await list(gone.token), 'ACCOUNT_DELETED');
    expectUnauthorized(await list(gone.token, await harness.anotherApp({})), 'ACCOUNT_DELETED');
  });

  it('stay refused after a restart when the end came through the service’s queue, and only then', async () => {
    const kept = session(ada);
    const heardOnly = session(ada);
    await harness.deliver(ended(ada, [kept.id]));
    await harness.hear(ended(ada, [heardOnly.id]));
    const restarted = await harness.anotherApp({});
    expectProblem(await list(kept.token, restarted), 401);
    // What an instance only heard on its own queue is the durable queue's to keep, by whichever instance took it.
    expect((await list(heardOnly.token, restarted)).statusCode).toBe(200);
  });

  it('with a not-before time, every session of the user issued before it is refused, and one after is not', async () => {
    const before = session(bob, now() - 5);
    await harness.deliver(ended(bob, [newId()], new Date().toISOString()));
    const after = session(bob, now() + 1);
    expectProblem(await list(before.token), 401);
    expect((await list(after.token)).statusCode).toBe(200);
    expectProblem(await list(before.token, await harness.anotherApp({})), 401);
  });
});

describe('an ended session’s streams', () => {
  it('say why and close, by token or by ticket, while the user’s other stream stays open', async () => {
    const ended1 = session(ada);
    const ended2 = session(ada);
    const kept = session(ada);
    const byToken = await harness.stream(undefined, { headers: { authorization: `Bearer ${ended1.token}` } });
    const byTicket = await harness.stream(undefined, {
      query: `?ticket=${encodeURIComponent(await ticketOf(ended2.token))}`,
    });
    const other = await harness.stream(undefined, { headers: { authorization: `Bearer ${kept.token}` } });
    for (const client of [byToken, byTicket, other]) {
      expect(client.status).toBe(200);
      await client.next((event) => event.event === 'unread_count');
    }

    await harness.hear(ended(ada, [ended1.id, ended2.id]));

    for (const client of [byToken, byTicket]) {
      const said = await client.next((event) => event.event === 'session_ended', 1_000);
      expect(JSON.parse(said.data)).toEqual({ reason: 'logout' });
      await client.ended;
      expect(client.received.some((event) => event.comment === 'session ended')).toBe(true);
    }
    await notify(ada);
    await other.next((event) => event.event === 'notification', 1_000);
    expect(other.received.some((event) => event.event === 'session_ended')).toBe(false);
  });

  it('cannot be opened by a ticket its session took before it ended', async () => {
    const gone = session(bob);
    const live = session(bob);
    const stale = await ticketOf(gone.token);
    const fresh = await ticketOf(live.token);
    await harness.hear(ended(bob, [gone.id]));
    expectUnauthorized(
      await harness.app.inject({ method: 'GET', url: `/api/notifications/stream?ticket=${encodeURIComponent(stale)}` }),
      'SESSION_ENDED',
    );
    const opened = await harness.stream(undefined, { query: `?ticket=${encodeURIComponent(fresh)}` });
    expect(opened.status).toBe(200);
  });
});
