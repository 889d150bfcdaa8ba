import {
  commentMentionCreated,
  createEvent,
  type EventData,
  type MentionKind,
  newId,
  userCreated,
  type UserSnapshot,
  userTagged,
} from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { inTurn, type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { type EventStreamClient, openEventStream } from '@recipes/testing/sse';
import { stubUsersService, type UsersServiceStub } from '@recipes/testing/stubs';
import type { NotificationsConfig } from '../src/config.js';
import { type NotificationsParts, notificationsService } from '../src/service.js';

export { expectProblem, expectUnauthorized } from '@recipes/testing/service';

export const log = createLogger({ service: 'notifications', level: 'silent' });

export interface TestUser extends UserSnapshot {
  token: string;
}

export const snapshotOf = ({ id, username, avatarUrl, revision }: UserSnapshot): UserSnapshot => ({
  id,
  username,
  avatarUrl,
  revision,
});

export interface NotificationsHarness extends ServiceHarness<NotificationsConfig, NotificationsParts> {
  /**
   * The users service, as the user directory's look-ups reach it; `users.requests` are the look-ups that reached it.
   */
  users: UsersServiceStub;
  /** A user the read model knows, as if their user.created had arrived. */
  knownUser(username: string, avatarUrl?: string | null): Promise<TestUser>;
  /** A user registered a moment ago: only the users service knows them yet. */
  newUser(username: string): TestUser;
  /** The notifications of `recipientId` as stored, oldest first. */
  rowsOf(recipientId: string): Promise<Record<string, unknown>[]>;
  /** The total and unread count kept for `recipientId`. */
  countsOf(recipientId: string): Promise<{ total: number; unread: number } | undefined>;
  /**
   * A stream of `user`'s (or of nobody's), opened over HTTP as a browser opens it: the app listens on a
   * port of its own from the first. Closed with the harness, if not before.
   */
  stream(
    user: TestUser | undefined,
    options?: { query?: string; headers?: Record<string, string> },
  ): Promise<EventStreamClient>;
}

/** The notifications service on a fresh, migrated database, with the users service stood in for. */
export async function notificationsHarness(env: Record<string, string> = {}): Promise<NotificationsHarness> {
  const users = await stubUsersService();
  const harness = await serviceHarness(notificationsService, {
    env: { USERS_INTERNAL_URL: users.url, ...env },
    neighbours: [users],
  });
  let base: Promise<string> | undefined;
  const open: EventStreamClient[] = [];
  const user = (username: string, avatarUrl: string | null = null): TestUser => {
    const snapshot = { id: newId(), username, avatarUrl, revision: 0 };
    return { ...snapshot, token: harness.tokenFor(snapshot) };
  };

  return {
    ...harness,
    users,
    async knownUser(username, avatarUrl = null) {
      const known = user(username, avatarUrl);
      await harness.deliver(createEvent(userCreated, snapshotOf(known), { producer: 'users', correlationId: 'test' }));
      return known;
    },
    newUser(username) {
      const registered = user(username);
      users.register(snapshotOf(registered));
      return registered;
    },
    async rowsOf(recipientId) {
      const { rows } = await harness.pool.query(
        `SELECT type, actor_id, content_type, content_id, comment_id, is_read, created_at, source_event_id
           FROM notifications WHERE recipient_id = $1 ORDER BY created_at, id`,
        [recipientId],
      );
      return rows;
    },
    async countsOf(recipientId) {
      const { rows } = await harness.pool.query(
        'SELECT total, unread FROM notification_counts WHERE recipient_id = $1',
        [recipientId],
      );
      return rows[0];
    },
    async stream(user, { query = '', headers = {} } = {}) {
      base ??= harness.app.listen({ host: '127.0.0.1', port: 0 });
      const client = await openEventStream(`${await base}/api/notifications/stream${query}`, {
        ...(user ? bearer(user) : {}),
        ...headers,
      });
      open.push(client);
      return client;
    },
    async close() {
      for (const client of open) client.close();
      await harness.close();
    },
  };
}

/**
 * A harness (see `notificationsHarness`), and the users a test file starts with, known in turn as `knownUser` makes
 * them.
 */
export async function notificationsHarnessWith<const N extends readonly string[]>(
  usernames: N,
  env: Record<string, string> = {},
) {
  const harness = await notificationsHarness(env);
  return { harness, users: await inTurn(usernames, (username) => harness.knownUser(username)) };
}

type MentionData = EventData<typeof commentMentionCreated>;
type TagData = EventData<typeof userTagged>;

const targetOf: Record<MentionKind, MentionData['targetType']> = {
  recipe_comment: 'recipe',
  collection_comment: 'collection',
  post_comment: 'post',
};

/** A `comment.mention.created` as the comments service writes it; `overrides` change its data. */
export function mentionEvent(
  actor: { id: string },
  mentioned: { id: string },
  kind: MentionKind = 'recipe_comment',
  overrides: Partial<MentionData> = {},
) {
  return createEvent(
    commentMentionCreated,
    {
      kind,
      mentionId: newId(),
      mentionedUserId: mentioned.id,
      actorId: actor.id,
      commentId: newId(),
      targetType: targetOf[kind],
      targetId: newId(),
      createdAt: new Date().toISOString(),
      ...overrides,
    },
    { producer: 'comments', correlationId: 'test-mention' },
  );
}

/** A `content.user.tagged` as the content service writes it. */
export function tagEvent(
  actor: { id: string },
  tagged: { id: string },
  contentType: TagData['contentType'] = 'recipe',
  overrides: Partial<TagData> = {},
) {
  return createEvent(
    userTagged,
    {
      contentType,
      contentId: newId(),
      actorId: actor.id,
      taggedUserId: tagged.id,
      createdAt: new Date().toISOString(),
      ...overrides,
    },
    { producer: 'content', correlationId: 'test-tag' },
  );
}

export const bearer = (user: { token: string }) => ({ authorization: `Bearer ${user.token}` });
