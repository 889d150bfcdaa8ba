import { createEvent, newId, userCreated, type UserSnapshot } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { inTurn, migratedPool, type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { stubUsersService, type UsersServiceStub } from '@recipes/testing/stubs';
import type { ContentConfig } from '../src/config.js';
import { type ContentParts, contentService } from '../src/service.js';

export { expectProblem } from '@recipes/testing/service';

export interface ContentDatabase {
  pool: Pool;
}

/**
 * A database of the test file's own with the content schema migrated before its tests, and a pool on it (see
 * `migratedPool`).
 */
export function contentDatabase(): ContentDatabase {
  return { pool: migratedPool(contentService) };
}

export interface TestUser extends UserSnapshot {
  token: string;
}

export interface ContentHarness extends ServiceHarness<ContentConfig, ContentParts> {
  usersService: UsersServiceStub;
  /** A user the read model already knows, as if their user.created had arrived. */
  knownUser(username: string, avatarUrl?: string | null): Promise<TestUser>;
  /** A user registered a moment ago: only the users service knows them yet. */
  newUser(username: string): TestUser;
  /** A well-signed token for a user nobody knows. */
  stranger(username: string): TestUser;
  bearer(user: { token: string }): { authorization: string };
  /** Any request, as `user` where one is given, with a body where `payload` is given. */
  call(
    method: string,
    url: string,
    user?: { token: string },
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<Awaited<ReturnType<ContentHarness['app']['inject']>>>;
}

/**
 * The content service on a fresh database of its own, with the users service stood in for; `env`, settings beyond the
 * defaults.
 */
export async function contentHarness(env: Record<string, string> = {}): Promise<ContentHarness> {
  const bearer = (user: { token: string }) => ({ authorization: `Bearer ${user.token}` });
  const usersService = await stubUsersService();
  const harness = await serviceHarness(contentService, {
    env: { USERS_INTERNAL_URL: usersService.url, ...env },
    neighbours: [usersService],
  });

  const stranger = (username: string): TestUser => {
    const user = { id: newId(), username, avatarUrl: null, revision: 0 };
    return { ...user, token: harness.tokenFor(user) };
  };

  return {
    ...harness,
    usersService,
    async knownUser(username, avatarUrl = null) {
      const user = { ...stranger(username), avatarUrl };
      const { token: _token, ...snapshot } = user;
      await harness.deliver(createEvent(userCreated, snapshot, { producer: 'users', correlationId: 'test' }));
      return user;
    },
    newUser(username) {
      const user = stranger(username);
      const { token: _token, ...snapshot } = user;
      usersService.register(snapshot);
      return user;
    },
    stranger,
    bearer,
    call(method, url, user, payload, headers = {}) {
      return harness.app.inject({
        method: method as 'GET',
        url,
        ...(payload === undefined ? {} : { payload: payload as object }),
        headers: { ...(user ? bearer(user) : {}), ...headers },
      });
    },
  };
}

/** A harness (see `contentHarness`), and the users a test file starts with, known in turn as `knownUser` makes them. */
export async function contentHarnessWith<const N extends readonly string[]>(usernames: N) {
  const harness = await contentHarness();
  return { harness, users: await inTurn(usernames, (username) => harness.knownUser(username)) };
}

/** The payloads of the events waiting in the outbox, oldest first. */
export async function outboxEvents(
  pool: Pool,
  type?: string,
): Promise<Array<{ type: string; correlationId: string; data: any }>> {
  const { rows } = await pool.query(
    `SELECT payload FROM outbox ${type ? 'WHERE type = $1' : ''} ORDER BY created_at, id`,
    type ? [type] : [],
  );
  return rows.map((row) => row.payload);
}
