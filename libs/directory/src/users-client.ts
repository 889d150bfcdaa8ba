import { type UserSnapshot, userSnapshotSchema } from '@recipes/contracts';
import { HttpError } from '@recipes/http';
import { z } from 'zod';

const oneUser = z.object({ user: userSnapshotSchema });
const someUsers = z.object({ users: z.array(userSnapshotSchema) });

/** The users service's internal look-ups, for users this service has not heard of yet. */
export class UsersClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** By id or username; undefined when there is no such user. */
  async find(idOrUsername: string): Promise<UserSnapshot | undefined> {
    const body = await this.get(`/internal/users/${encodeURIComponent(idOrUsername)}`);
    return body === undefined ? undefined : oneUser.parse(body).user;
  }

  /** The users among `usernames` that exist, in any case. */
  async findByUsernames(usernames: string[]): Promise<UserSnapshot[]> {
    if (usernames.length === 0) return [];
    const body = await this.get(`/internal/users?usernames=${usernames.map(encodeURIComponent).join(',')}`);
    return body === undefined ? [] : someUsers.parse(body).users;
  }

  private async get(path: string): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch {
      // Not knowing is not the same as "no such user": the caller may try again shortly.
      throw new HttpError(503, 'The users service is unavailable, try again later');
    }
    if (response.status === 404) return undefined;
    if (!response.ok) throw new HttpError(503, 'The users service is unavailable, try again later');
    return response.json();
  }
}
