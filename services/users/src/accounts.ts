import {
  type Author,
  conflict,
  createEvent,
  newId,
  userCreated,
  userUpdated,
  type UserSnapshot,
  usernameSchema,
} from '@recipes/contracts';
import { type Pool, type Queryable, sqlState, UNIQUE_VIOLATION, withTransaction } from '@recipes/db';
import { enqueue } from '@recipes/outbox';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import * as repository from './repository.js';
import type { UserRecord } from './repository.js';

const PRODUCER = 'users';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Only a name registration accepts can be anyone's; any other names nobody and stays out of SQL (NUL cannot even be
 * sent).
 */
const couldBeUsername = (name: string) => usernameSchema.safeParse(name).success;

export const toAuthor = ({ id, username, avatarUrl }: UserRecord): Author => ({ id, username, avatarUrl });
export const toSnapshot = ({ id, username, avatarUrl, revision }: UserRecord): UserSnapshot => ({
  id,
  username,
  avatarUrl,
  revision,
});

export interface Registration {
  username: string;
  password: string;
  avatarUrl: string | null;
}

/** The users domain: every change is stored together with the event that tells the other services. */
export function accounts(pool: Pool) {
  return {
    async register({ username, password, avatarUrl }: Registration, correlationId: string): Promise<UserRecord> {
      const passwordHash = await hashPassword(password);
      try {
        return await withTransaction(pool, async (tx) => {
          const user = await repository.insertUser(tx, { id: newId(), username, passwordHash, avatarUrl });
          await enqueue(tx, createEvent(userCreated, toSnapshot(user), { producer: PRODUCER, correlationId }));
          return user;
        });
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION) throw conflict('That username is taken');
        throw error;
      }
    },

    /** The user when the password is right; undefined for a wrong password or an unknown name alike. */
    async authenticate(username: string, password: string): Promise<UserRecord | undefined> {
      const user = couldBeUsername(username) ? await repository.findUserByUsername(pool, username) : undefined;
      const passwordMatches = await verifyPassword(password, user?.passwordHash ?? decoyHash);
      if (!user || !passwordMatches) return undefined;
      // Only now is the password known: a hash of an older algorithm or cost is replaced by one of today's.
      if (needsRehash(user.passwordHash))
        await repository.replacePasswordHash(pool, user.id, user.passwordHash, await hashPassword(password));
      return user;
    },

    /** Sets a new password, and does `alsoIn` in the same transaction (ending the user's other sessions). */
    async changePassword<T>(id: string, password: string, alsoIn: (tx: Queryable) => Promise<T>): Promise<T> {
      const passwordHash = await hashPassword(password);
      return withTransaction(pool, async (tx) => {
        await repository.setPasswordHash(tx, id, passwordHash);
        return alsoIn(tx);
      });
    },

    async changeAvatar(id: string, avatarUrl: string | null, correlationId: string): Promise<UserRecord | undefined> {
      return withTransaction(pool, async (tx) => {
        const user = await repository.updateAvatar(tx, id, avatarUrl);
        if (user) await enqueue(tx, createEvent(userUpdated, toSnapshot(user), { producer: PRODUCER, correlationId }));
        return user;
      });
    },

    /** By UUID, or by username in any case. */
    async find(idOrUsername: string): Promise<UserRecord | undefined> {
      if (UUID.test(idOrUsername)) return repository.findUserById(pool, idOrUsername);
      return couldBeUsername(idOrUsername) ? repository.findUserByUsername(pool, idOrUsername) : undefined;
    },

    async findByUsernames(usernames: string[]): Promise<UserRecord[]> {
      return repository.findUsersByUsernames(pool, usernames);
    },
  };
}

export type Accounts = ReturnType<typeof accounts>;
