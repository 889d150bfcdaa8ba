import { type UserSnapshot, userSnapshotSchema } from '@recipes/contracts';
import { z } from 'zod';
import { InternalClient } from './internal-client.js';

const oneUser = z.object({ user: userSnapshotSchema });
const someUsers = z.object({ users: z.array(userSnapshotSchema) });

/** The users service's internal look-ups, for users this service has not heard of yet. */
export class UsersClient {
  private readonly client: InternalClient;

  constructor(baseUrl: string, timeoutMs: number) {
    this.client = new InternalClient('users', baseUrl, timeoutMs);
  }

  /** By id or username; undefined when there is no such user. */
  async find(idOrUsername: string): Promise<UserSnapshot | undefined> {
    const body = await this.client.get(`/internal/users/${encodeURIComponent(idOrUsername)}`);
    return body === undefined ? undefined : oneUser.parse(body).user;
  }

  /** The users among `usernames` that exist, in any case. */
  async findByUsernames(usernames: string[]): Promise<UserSnapshot[]> {
    if (usernames.length === 0) return [];
    const body = await this.client.get(`/internal/users?usernames=${usernames.map(encodeURIComponent).join(',')}`);
    return body === undefined ? [] : someUsers.parse(body).users;
  }
}
