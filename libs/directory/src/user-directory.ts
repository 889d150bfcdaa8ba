import { unknownCaller, type UserSnapshot } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { OwnerLookups, type OwnerLookupsSettings } from './owner-lookups.js';
import { findUsersByIds, findUsersByUsernames, upsertUsers } from './repository.js';
import { UsersClient } from './users-client.js';

export interface UserDirectorySettings extends OwnerLookupsSettings {
  pool: Pool;
  /** The users service, for users the events have not brought yet (read-your-writes). */
  usersUrl: string;
  timeoutMs?: number;
}

/**
 * This service's knowledge of users. Events keep it current; a user it has not heard of yet (registered
 * a moment ago) is asked of the users service once and remembered, and an id that service says nobody has
 * is not asked about again for a few seconds (owner-lookups.ts; names are asked about every time).
 */
export class UserDirectory {
  private readonly pool: Pool;
  private readonly users: UsersClient;
  private readonly lookups: OwnerLookups<UserSnapshot>;

  constructor({ pool, usersUrl, timeoutMs = 2_000, ...lookups }: UserDirectorySettings) {
    this.pool = pool;
    this.users = new UsersClient(usersUrl, timeoutMs);
    this.lookups = new OwnerLookups(lookups);
  }

  /** Takes in a snapshot an event brought, once per event; an older one than held changes nothing. */
  async remember(user: UserSnapshot, event: { id: string; type: string }): Promise<void> {
    await handleOnce(this.pool, event, (tx) => upsertUsers(tx, [user]));
  }

  async findById(id: string): Promise<UserSnapshot | undefined> {
    return (await this.findByIds([id])).get(id);
  }

  /**
   * The user a verified token names: 401 when no such account exists, for a well-signed token of one proves nothing.
   */
  async caller(id: string): Promise<UserSnapshot> {
    const user = await this.findById(id);
    if (!user) throw unknownCaller();
    return user;
  }

  /** The users among `ids` that exist, by id. */
  async findByIds(ids: string[]): Promise<Map<string, UserSnapshot>> {
    const known = await findUsersByIds(this.pool, ids);
    const found = new Map(known.map((user) => [user.id, user]));
    const missing = [...new Set(ids)].filter((id) => !found.has(id));
    const fetched = (await Promise.all(missing.map((id) => this.lookups.find(id, () => this.users.find(id))))).filter(
      (user) => user !== undefined,
    );
    await upsertUsers(this.pool, fetched);
    for (const user of fetched) found.set(user.id, user);
    return found;
  }

  async findByUsername(username: string): Promise<UserSnapshot | undefined> {
    return (await this.findByUsernames([username])).get(username.toLowerCase());
  }

  /** The users among `usernames` that exist, by lower-cased username. */
  async findByUsernames(usernames: string[]): Promise<Map<string, UserSnapshot>> {
    const known = await findUsersByUsernames(this.pool, usernames);
    const found = new Map(known.map((user) => [user.username.toLowerCase(), user]));
    const missing = [...new Set(usernames.map((name) => name.toLowerCase()))].filter((name) => !found.has(name));
    const fetched = await this.users.findByUsernames(missing);
    await upsertUsers(this.pool, fetched);
    for (const user of fetched) found.set(user.username.toLowerCase(), user);
    return found;
  }
}
