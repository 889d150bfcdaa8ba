import { MatchersV3 } from '@pact-foundation/pact';
import {
  userBlocked,
  userCreated,
  userDeleted,
  userMuted,
  userSessionEnded,
  userUnblocked,
  userUnmuted,
  userUpdated,
} from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mentionEvent, type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, delivery, eventsPact, isoMillis } from './support.js';

/** What notifications needs of the user events: enough to show an actor, and the revision to order updates. */
const pact = eventsPact('users');
const { eachLike, integer, like, regex, uuid } = MatchersV3;
let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());

const USER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a71';

async function known() {
  const { rows } = await harness.pool.query('SELECT username, avatar_url, revision FROM users WHERE id = $1', [USER]);
  return rows;
}

describe('user events', () => {
  it('learns a user who registered without an avatar from user.created', async () => {
    const message = eventMessage(userCreated, {
      id: uuid(USER),
      username: like('Ada_Pact'),
      avatarUrl: null,
      revision: integer(0),
    });
    await delivery(
      pact,
      'a user.created for a user who registered without an avatar',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a72',
      message,
    ).verify(consumedBy(harness));
    expect(await known()).toEqual([{ username: 'Ada_Pact', avatar_url: null, revision: 0 }]);
  });

  it('follows an avatar change from user.updated', async () => {
    const message = eventMessage(userUpdated, {
      id: uuid(USER),
      username: like('Ada_Pact'),
      avatarUrl: like('https://cdn.example.com/ada.png'),
      revision: integer(1),
    });
    await delivery(
      pact,
      'a user.updated for a user who changed their avatar',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a73',
      message,
    ).verify(consumedBy(harness));
    expect(await known()).toEqual([
      { username: 'Ada_Pact', avatar_url: 'https://cdn.example.com/ada.png', revision: 1 },
    ]);
  });
});

describe('mute and block events', () => {
  const BLOCKER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a81';
  const BLOCKED = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a82';
  /** The pair's state as the users service sends it; only the fields this service reads are matched by value. */
  const relation = (state: { muted: boolean; blocked: boolean; revision: number; lastUnblockedAt: string | null }) => ({
    userId: uuid(BLOCKER),
    targetId: uuid(BLOCKED),
    muted: state.muted,
    blocked: state.blocked,
    revision: integer(state.revision),
    changedAt: isoMillis('2026-11-22T10:00:00.000Z'),
    lastUnblockedAt: state.lastUnblockedAt === null ? null : isoMillis(state.lastUnblockedAt),
  });
  const held = async () =>
    (
      await harness.pool.query(
        'SELECT muted, blocked, revision FROM user_relations WHERE user_id = $1 AND target_id = $2',
        [BLOCKER, BLOCKED],
      )
    ).rows;
  const shown = async () =>
    (
      await harness.pool.query(
        'SELECT count(*)::int AS n FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL',
        [BLOCKER],
      )
    ).rows[0].n;

  it('keeps a mute from user.muted and its end from user.unmuted', async () => {
    const muted = eventMessage(
      userMuted,
      relation({ muted: true, blocked: false, revision: 1, lastUnblockedAt: null }),
    );
    await delivery(pact, 'a user.muted for a first mute', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a83', muted).verify(
      consumedBy(harness),
    );
    expect(await held()).toEqual([{ muted: true, blocked: false, revision: 1 }]);
    const unmuted = eventMessage(
      userUnmuted,
      relation({ muted: false, blocked: false, revision: 2, lastUnblockedAt: null }),
    );
    await delivery(pact, 'a user.unmuted ending that mute', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a84', unmuted).verify(
      consumedBy(harness),
    );
    expect(await held()).toEqual([{ muted: false, blocked: false, revision: 2 }]);
  });

  it('retracts what the blocked user caused on user.blocked, and brings nothing back on user.unblocked', async () => {
    await harness.deliver(mentionEvent({ id: BLOCKED }, { id: BLOCKER }));
    expect(await shown()).toBe(1);
    const blocked = eventMessage(
      userBlocked,
      relation({ muted: false, blocked: true, revision: 3, lastUnblockedAt: null }),
    );
    await delivery(pact, 'a user.blocked for a first block', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a85', blocked).verify(
      consumedBy(harness),
    );
    expect(await shown()).toBe(0);
    const unblocked = eventMessage(
      userUnblocked,
      relation({ muted: false, blocked: false, revision: 4, lastUnblockedAt: '2026-11-22T10:00:01.000Z' }),
    );
    await delivery(
      pact,
      'a user.unblocked ending that block',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a86',
      unblocked,
    ).verify(consumedBy(harness));
    expect(await held()).toEqual([{ muted: false, blocked: false, revision: 4 }]);
    expect(await shown()).toBe(0);
  });

  it('refuses the tokens of a session user.session.ended names, and keeps it through a restart', async () => {
    const sessionId = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a91';
    const token = harness.tokenFor({
      id: USER,
      username: 'Ada_Pact',
      sessionId,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    const list = (app = harness.app) =>
      app.inject({ method: 'GET', url: '/api/notifications', headers: { authorization: `Bearer ${token}` } });
    expect((await list()).statusCode).toBe(200);
    const message = eventMessage(userSessionEnded, {
      userId: uuid(USER),
      sessionIds: eachLike(uuid(sessionId)),
      notBefore: null,
      reason: regex(
        '^(logout|logout_all|ended_by_user|reuse|password_changed|too_many_sessions|account_deleted)$',
        'logout',
      ),
      endedAt: isoMillis('2026-11-22T10:00:00.000Z'),
      // Far ahead in the example, so that the end is still worth keeping when the message is handled.
      tokensExpireBy: isoMillis('2099-11-22T10:15:01.000Z'),
    });
    await delivery(
      pact,
      'a user.session.ended for one session that was logged out',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a92',
      message,
    ).verify(consumedBy(harness));
    expect((await list()).statusCode).toBe(401);
    expect((await list(await harness.anotherApp({}))).statusCode).toBe(401);
  });
});

describe('account deletion', () => {
  const LEAVER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4aa1';
  const OTHER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4aa2';
  const live = async (column: 'actor_id' | 'recipient_id') =>
    (await harness.pool.query(`SELECT count(*)::int AS n FROM notifications WHERE ${column} = $1`, [LEAVER])).rows[0].n;

  it('erases the inbox of a deleted user and retracts what they caused others, then confirms, on user.deleted', async () => {
    await harness.deliver(mentionEvent({ id: LEAVER }, { id: OTHER }));
    await harness.deliver(mentionEvent({ id: OTHER }, { id: LEAVER }));
    expect([await live('actor_id'), await live('recipient_id')]).toEqual([1, 1]);
    const message = eventMessage(userDeleted, {
      userId: uuid(LEAVER),
      deletedAt: isoMillis('2026-11-22T10:00:00.000Z'),
      sessionIds: [],
      tokensExpireBy: isoMillis('2026-11-22T10:15:01.000Z'),
    });
    await delivery(
      pact,
      'a user.deleted for an account deleted',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4aa3',
      message,
    ).verify(consumedBy(harness));
    expect([await live('actor_id'), await live('recipient_id')]).toEqual([0, 0]);
    const unread = await harness.pool.query('SELECT unread FROM notification_counts WHERE recipient_id = $1', [OTHER]);
    expect(unread.rows).toEqual([{ unread: 0 }]);
    const { rows } = await harness.pool.query(
      "SELECT payload->'data'->>'userId' AS \"userId\" FROM outbox WHERE type = 'notifications.user.erased'",
    );
    expect(rows).toEqual([{ userId: LEAVER }]);
  });
});
