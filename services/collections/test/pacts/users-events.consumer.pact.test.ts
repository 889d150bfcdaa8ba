import { userCreated, type UserSnapshot, userUpdated } from '@recipes/contracts';
import { UserDirectory, userDirectoryHandlers } from '@recipes/directory';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { collectionsService } from '../../src/service.js';
import { eventsConsumer } from './support.js';

/** What the collections service needs of the users service's events: the user directory's handlers, on a real database. */
const pool = migratedPool(collectionsService);
const receives = eventsConsumer<UserSnapshot>('users', pool, userDirectoryHandlers(new UserDirectory({ pool, usersUrl: 'http://127.0.0.1:1' })));

async function stored(id: string) {
  const { rows } = await pool.query('SELECT username, avatar_url, revision FROM users WHERE id = $1', [id]);
  return rows[0];
}

describe('user events consumed by collections', () => {
  it('user.created: the user becomes known, as an owner and as an author of saved content', async () => {
    const user = { id: '0190f5a4-0000-7000-8000-00000000b001', username: 'ada', avatarUrl: 'https://cdn.example.com/ada.png', revision: 0 };
    await receives('a user with an avatar registers', userCreated, user);
    expect(await stored(user.id)).toEqual({ username: 'ada', avatar_url: user.avatarUrl, revision: 0 });
  });

  it('user.updated: saved items show the author’s new avatar', async () => {
    const user = { id: '0190f5a4-0000-7000-8000-00000000b002', username: 'bob', avatarUrl: 'https://cdn.example.com/bob-2.png', revision: 1 };
    await pool.query(`INSERT INTO users (id, username, avatar_url, revision) VALUES ($1, 'bob', NULL, 0)`, [user.id]);
    await receives('a user changes their avatar', userUpdated, user);
    expect(await stored(user.id)).toEqual({ username: 'bob', avatar_url: user.avatarUrl, revision: 1 });
  });
});
