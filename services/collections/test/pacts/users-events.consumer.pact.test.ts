import {
  type SessionEnded,
  type UserDeleted,
  userCreated,
  userDeleted,
  userSessionEnded,
  type UserSnapshot,
  userUpdated,
} from '@recipes/contracts';
import { ContentDirectory, UserDirectory, userDirectoryHandlers } from '@recipes/directory';
import { createLogger } from '@recipes/logging';
import { EndedSessions, sessionEnds, userDeletedHandler } from '@recipes/runtime';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { collections } from '../../src/collections.js';
import { erasureSteps } from '../../src/erasure.js';
import { savedItems } from '../../src/saved-items.js';
import { collectionsService } from '../../src/service.js';
import { eventsConsumer } from './support.js';

/**
 * What the collections service needs of the users service's events: the user directory's handlers, on a real database.
 */
const pool = migratedPool(collectionsService);
const endedSessions = new EndedSessions();
// The directory's handlers, and the one the runtime gives every service for the ends of sessions.
const users = new UserDirectory({ pool, usersUrl: 'http://127.0.0.1:1' });
const content = new ContentDirectory({ pool, contentUrl: 'http://127.0.0.1:1' });
const steps = erasureSteps(
  pool,
  collections({ pool, users }),
  savedItems({ pool, users, content, visibility: 'public' }),
);
const receives = eventsConsumer<UserSnapshot | SessionEnded | UserDeleted>('users', pool, [
  ...userDirectoryHandlers(users),
  userDeletedHandler({ pool, service: 'collections', steps }),
  ...sessionEnds('collections', pool, endedSessions, createLogger({ service: 'collections', level: 'silent' })).durable,
]);

async function stored(id: string) {
  const { rows } = await pool.query('SELECT username, avatar_url, revision FROM users WHERE id = $1', [id]);
  return rows[0];
}

describe('user events consumed by collections', () => {
  it('user.created: the user becomes known, as an owner and as an author of saved content', async () => {
    const user = {
      id: '0190f5a4-0000-7000-8000-00000000b001',
      username: 'ada',
      avatarUrl: 'https://cdn.example.com/ada.png',
      revision: 0,
    };
    await receives('a user with an avatar registers', userCreated, user);
    expect(await stored(user.id)).toEqual({ username: 'ada', avatar_url: user.avatarUrl, revision: 0 });
  });

  it('user.updated: saved items show the author’s new avatar', async () => {
    const user = {
      id: '0190f5a4-0000-7000-8000-00000000b002',
      username: 'bob',
      avatarUrl: 'https://cdn.example.com/bob-2.png',
      revision: 1,
    };
    await pool.query(`INSERT INTO users (id, username, avatar_url, revision) VALUES ($1, 'bob', NULL, 0)`, [user.id]);
    await receives('a user changes their avatar', userUpdated, user);
    expect(await stored(user.id)).toEqual({ username: 'bob', avatar_url: user.avatarUrl, revision: 1 });
  });

  it('user.session.ended: the session’s tokens are refused, and the end kept for the next start', async () => {
    const ended: SessionEnded = {
      userId: '0190f5a4-0000-7000-8000-00000000b003',
      sessionIds: ['0190f5a4-0000-7000-8000-00000000b004'],
      notBefore: null,
      reason: 'logout',
      endedAt: '2026-11-22T10:00:00.000Z',
      // Far ahead, so that the end is still worth keeping when the message is handled.
      tokensExpireBy: '2099-11-22T10:15:01.000Z',
    };
    await receives('a user logs out', userSessionEnded, ended);
    expect(endedSessions.refuses({ userId: ended.userId, sessionId: ended.sessionIds[0]!, issuedAt: 0 })).toBe(true);
    const { rows } = await pool.query('SELECT user_id FROM ended_sessions WHERE session_id = $1', [
      ended.sessionIds[0],
    ]);
    expect(rows).toEqual([{ user_id: ended.userId }]);
  });

  it('user.deleted: their collections, saved items and what was known of them go, and collections confirms', async () => {
    const userId = '0190f5a4-0000-7000-8000-00000000b005';
    await pool.query(`INSERT INTO users (id, username, avatar_url, revision) VALUES ($1, 'lea', NULL, 0)`, [userId]);
    await pool.query(`INSERT INTO collections (id, owner_id, name, description) VALUES ($1, $2, 'Gone', '')`, [
      '0190f5a4-0000-7000-8000-00000000b006',
      userId,
    ]);
    await receives('a user deletes their account', userDeleted, {
      userId,
      deletedAt: '2026-11-22T10:00:00.000Z',
      sessionIds: [],
      tokensExpireBy: '2026-11-22T10:15:01.000Z',
    });
    expect(await stored(userId)).toBeUndefined();
    expect((await pool.query('SELECT id FROM collections WHERE owner_id = $1', [userId])).rows).toEqual([]);
    const { rows } = await pool.query(
      "SELECT payload->'data'->>'userId' AS \"userId\" FROM outbox WHERE type = 'collections.user.erased'",
    );
    expect(rows).toContainEqual({ userId });
  });
});
