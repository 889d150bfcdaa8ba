import { z } from 'zod';
import { defineEvent } from './envelope.js';

/**
 * The public face of a user that other services keep in their read models. `revision` grows by one
 * with every change, so a consumer can ignore an update older than the one it already holds.
 */
export const userSnapshotSchema = z.object({
  id: z.uuid(),
  username: z.string(),
  avatarUrl: z.string().nullable(),
  revision: z.number().int().nonnegative(),
});

export type UserSnapshot = z.infer<typeof userSnapshotSchema>;

export const userCreated = defineEvent({
  type: 'user.created',
  version: 1,
  data: userSnapshotSchema,
  producer: 'users',
  consumers: ['content', 'comments', 'collections', 'notifications'],
  description: 'A user registered.',
});

export const userUpdated = defineEvent({
  type: 'user.updated',
  version: 1,
  data: userSnapshotSchema,
  producer: 'users',
  consumers: ['content', 'comments', 'collections', 'notifications'],
  description: 'A user changed their profile (avatar).',
});

/**
 * What one user (`userId`) holds against another (`targetId`): a mute, a block, both or neither
 * (docs/api.md §10). Every change of the pair grows `revision`, so a consumer keeps the newest whatever
 * order the events come in. A block stays a mute's superset: consumers read `blocked` as muted too.
 * `lastUnblockedAt` is when the pair's latest block ended (null while blocked or if never blocked), so
 * that a mention or tag made before a block ended is known as made during or before it, in any order.
 */
export const userRelationSchema = z.object({
  userId: z.uuid(),
  targetId: z.uuid(),
  muted: z.boolean(),
  blocked: z.boolean(),
  revision: z.number().int().nonnegative(),
  changedAt: z.iso.datetime(),
  lastUnblockedAt: z.iso.datetime().nullable(),
});

export type UserRelation = z.infer<typeof userRelationSchema>;

export const userMuted = defineEvent({
  type: 'user.muted',
  version: 1,
  data: userRelationSchema,
  producer: 'users',
  consumers: ['notifications'],
  description: 'A user muted another: nothing the muted user does notifies them from now on.',
});

export const userUnmuted = defineEvent({
  type: 'user.unmuted',
  version: 1,
  data: userRelationSchema,
  producer: 'users',
  consumers: ['notifications'],
  description: 'A user unmuted another.',
});

export const userBlocked = defineEvent({
  type: 'user.blocked',
  version: 1,
  data: userRelationSchema,
  producer: 'users',
  consumers: ['comments', 'content', 'notifications'],
  description:
    'A user blocked another: the blocked user can no longer comment on their content, ' +
    'mention or tag them, and the notifications they caused them are retracted.',
});

export const userUnblocked = defineEvent({
  type: 'user.unblocked',
  version: 1,
  data: userRelationSchema,
  producer: 'users',
  consumers: ['comments', 'content', 'notifications'],
  description: 'A user unblocked another; nothing retracted comes back.',
});

/**
 * Sessions of a user that ended (docs/api.md §11.1): by logout, by a replayed refresh token, by a password
 * change, when the user ended them, or as the oldest of too many. `sessionIds` names every session that ended; when all
 * of the user's
 * sessions ended at once, `notBefore` also says from when on a token of theirs is taken again: a token of
 * any session issued in a whole second before it is refused. `tokensExpireBy` is when the last access
 * token of those sessions expires anyway, so a verifier can forget the end after it.
 */
export const sessionEndedSchema = z.object({
  userId: z.uuid(),
  sessionIds: z.array(z.uuid()).min(1),
  notBefore: z.iso.datetime().nullable(),
  reason: z.enum([
    'logout',
    'logout_all',
    'ended_by_user',
    'reuse',
    'password_changed',
    'too_many_sessions',
    'account_deleted',
  ]),
  endedAt: z.iso.datetime(),
  tokensExpireBy: z.iso.datetime(),
});

export type SessionEnded = z.infer<typeof sessionEndedSchema>;

export const userSessionEnded = defineEvent({
  type: 'user.session.ended',
  version: 1,
  data: sessionEndedSchema,
  producer: 'users',
  // Every service that verifies tokens but the producer, which keeps the ends in its own transaction.
  consumers: ['content', 'comments', 'collections', 'notifications'],
  description:
    'Sessions of a user ended: their refresh tokens no longer work, and their access tokens are refused by every service.',
});
