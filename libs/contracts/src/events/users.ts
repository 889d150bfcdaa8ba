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
