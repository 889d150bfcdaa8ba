import { z } from 'zod';
import { defineEvent, type EventDefinition } from './envelope.js';

/**
 * An account deleted (docs/api.md §11.2): the user row is a tombstone from `deletedAt` on, and every service
 * erases what it holds of `userId`. `sessionIds` are the sessions the deletion ended (also told by
 * `user.session.ended`), so a service can keep refusing their tokens without keeping whose they were;
 * `tokensExpireBy` is when the last of their access tokens expires anyway.
 */
export const userDeletedSchema = z.object({
  userId: z.uuid(),
  deletedAt: z.iso.datetime(),
  sessionIds: z.array(z.uuid()),
  tokensExpireBy: z.iso.datetime(),
});
export type UserDeleted = z.infer<typeof userDeletedSchema>;

/**
 * The owner kept where an owner's id is no longer wanted but a row must stay: the end of a deleted
 * account's session (its id alone refuses its tokens), a deleted recipe or collection known elsewhere.
 */
export const NOBODY = '00000000-0000-0000-0000-000000000000';

/** The services that hold a part of a user and confirm its erasure; the deletion is complete once all have. */
export const ERASING_SERVICES = ['content', 'comments', 'collections', 'notifications'] as const;
export type ErasingService = (typeof ERASING_SERVICES)[number];

export const userDeleted = defineEvent({
  type: 'user.deleted',
  version: 1,
  data: userDeletedSchema,
  producer: 'users',
  consumers: [...ERASING_SERVICES],
  description:
    'A user deleted their account: each consumer erases what it holds of them, as if they had deleted each thing themselves, then confirms.',
});

/** A service's confirmation that nothing of `userId` is left in its schema. */
export const userErasedSchema = z.object({
  userId: z.uuid(),
  service: z.enum(ERASING_SERVICES),
  erasedAt: z.iso.datetime(),
});
export type UserErased = z.infer<typeof userErasedSchema>;

const erased = <S extends ErasingService>(service: S) =>
  defineEvent({
    type: `${service}.user.erased` as `${S}.user.erased`,
    version: 1,
    data: userErasedSchema,
    producer: service,
    consumers: ['users'],
    description: `The ${service} service erased everything it held of a deleted user.`,
  });

export const contentUserErased = erased('content');
export const commentsUserErased = erased('comments');
export const collectionsUserErased = erased('collections');
export const notificationsUserErased = erased('notifications');

/** Each erasing service's confirmation event. */
export const userErasedEvents: Record<ErasingService, EventDefinition<string, typeof userErasedSchema>> = {
  content: contentUserErased,
  comments: commentsUserErased,
  collections: collectionsUserErased,
  notifications: notificationsUserErased,
};
