import { generateSigningKeyPair, tokenIssuer } from '@recipes/auth';
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
import { type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { stubUsersService, type UsersServiceStub } from '@recipes/testing/stubs';
import type { NotificationsConfig } from '../src/config.js';
import { type NotificationsParts, notificationsService } from '../src/service.js';

export { expectProblem } from '@recipes/testing/service';

export const log = createLogger({ service: 'notifications', level: 'silent' });

export interface TestUser extends UserSnapshot {
  token: string;
}

/** Signs tokens as the users service would, with a key pair made for the test (for the service run on its own keys). */
export function tokenMaker(config: Pick<NotificationsConfig, 'JWT_ISSUER' | 'JWT_AUDIENCE'>) {
  const keys = generateSigningKeyPair();
  const sign = tokenIssuer({ privateKey: keys.privateKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: 3600 });
  return {
    publicKey: keys.publicKey,
    /** A user with a valid token, known to nobody until told. */
    user(username: string, avatarUrl: string | null = null): TestUser {
      const id = newId();
      return { id, username, avatarUrl, revision: 0, token: sign({ id, username }) };
    },
  };
}

export const snapshotOf = ({ id, username, avatarUrl, revision }: UserSnapshot): UserSnapshot => ({ id, username, avatarUrl, revision });

export interface NotificationsHarness extends ServiceHarness<NotificationsConfig, NotificationsParts> {
  /** The users service, as the user directory's look-ups reach it; `users.requests` are the look-ups that reached it. */
  users: UsersServiceStub;
  /** A user the read model knows, as if their user.created had arrived. */
  knownUser(username: string, avatarUrl?: string | null): Promise<TestUser>;
  /** A user registered a moment ago: only the users service knows them yet. */
  newUser(username: string): TestUser;
}

/** The notifications service on a fresh, migrated database, with the users service stood in for. */
export async function notificationsHarness(env: Record<string, string> = {}): Promise<NotificationsHarness> {
  const users = await stubUsersService();
  const harness = await serviceHarness(notificationsService, { env: { USERS_INTERNAL_URL: users.url, ...env }, neighbours: [users] });
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
  };
}

type MentionData = EventData<typeof commentMentionCreated>;
type TagData = EventData<typeof userTagged>;

const targetOf: Record<MentionKind, MentionData['targetType']> = {
  recipe_comment: 'recipe',
  collection_comment: 'collection',
  post_comment: 'post',
};

/** A `comment.mention.created` as the comments service writes it; `overrides` change its data. */
export function mentionEvent(actor: { id: string }, mentioned: { id: string }, kind: MentionKind = 'recipe_comment', overrides: Partial<MentionData> = {}) {
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
export function tagEvent(actor: { id: string }, tagged: { id: string }, contentType: TagData['contentType'] = 'recipe', overrides: Partial<TagData> = {}) {
  return createEvent(
    userTagged,
    { contentType, contentId: newId(), actorId: actor.id, taggedUserId: tagged.id, createdAt: new Date().toISOString(), ...overrides },
    { producer: 'content', correlationId: 'test-tag' },
  );
}

export const bearer = (user: { token: string }) => ({ authorization: `Bearer ${user.token}` });
