import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/passwords.js';
import { oldCostHash } from './old-hashes.js';
import { type UsersHarness, usersHarness } from './support.js';

/** Hashes of the old cost still let their owners in, and are replaced by today's at the next login. */
let harness: UsersHarness;
beforeAll(async () => {
  harness = await usersHarness({ LOGIN_LIMIT_PER_ADDRESS: '1000', REGISTER_LIMIT_PER_ADDRESS: '1000' });
});
afterAll(() => harness.close());

const PASSWORD = 'old correct horse';

/** A user whose row holds a hash of the old cost, as rows written before argon2id do. */
async function userWithOldHash(username: string) {
  const registered = await harness.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username, password: 'placeholder password' },
  });
  expect(registered.statusCode).toBe(201);
  const { id } = (registered.json() as { user: { id: string } }).user;
  const old = oldCostHash(PASSWORD);
  await harness.pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [id, old]);
  return { id, old };
}

async function storedRow(id: string) {
  const { rows } = await harness.pool.query<{ password_hash: string; revision: number }>(
    'SELECT password_hash, revision FROM users WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

const login = (username: string, password: string) =>
  harness.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });

describe('a password hash of the old cost', () => {
  it('lets its owner in, and is replaced by one of today’s cost, with no profile change', async () => {
    const { id, old } = await userWithOldHash('old_hash_owner');
    expect((await login('old_hash_owner', PASSWORD)).statusCode).toBe(200);
    const row = await storedRow(id);
    expect(row.password_hash).not.toBe(old);
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(PASSWORD, row.password_hash)).toBe(true);
    expect(row.revision).toBe(0);
    // The new hash lets the owner in as well, and stays.
    expect((await login('OLD_HASH_OWNER', PASSWORD)).statusCode).toBe(200);
    expect((await storedRow(id)).password_hash).toBe(row.password_hash);
  });

  it('is kept as it is after a wrong password', async () => {
    const { id, old } = await userWithOldHash('old_hash_kept');
    expect((await login('old_hash_kept', 'not the password')).statusCode).toBe(401);
    expect((await storedRow(id)).password_hash).toBe(old);
  });
});
