import { z } from 'zod';
import { defineEvent } from './envelope.js';

export const contentTypeSchema = z.enum(['recipe', 'post']);
export type ContentType = z.infer<typeof contentTypeSchema>;

/**
 * What other services keep of a recipe or post: enough to list it in saved items and to know whether it
 * can be commented on. Every event carries the whole snapshot and its `revision`, so a consumer applies
 * the newest it has seen and ignores older ones, whatever order they arrive in.
 */
export const contentSnapshotSchema = z.object({
  id: z.uuid(),
  authorId: z.uuid(),
  title: z.string(),
  /** The summary's cover: the content's own cover, else its first image, else null. */
  coverImageUrl: z.string().nullable(),
  deleted: z.boolean(),
  revision: z.number().int().nonnegative(),
  createdAt: z.iso.datetime(),
});
export type ContentSnapshot = z.infer<typeof contentSnapshotSchema>;

const contentConsumers = ['comments', 'collections'] as const;
/** A deletion also retracts the notifications about the content (docs/api.md §7). */
const deletionConsumers = [...contentConsumers, 'notifications'] as const;

export const recipeCreated = defineEvent({
  type: 'recipe.created',
  version: 1,
  data: contentSnapshotSchema,
  producer: 'content',
  consumers: contentConsumers,
  description: 'A recipe was published.',
});

export const recipeUpdated = defineEvent({
  type: 'recipe.updated',
  version: 1,
  data: contentSnapshotSchema,
  producer: 'content',
  consumers: contentConsumers,
  description: 'A recipe’s title or cover changed.',
});

export const recipeDeleted = defineEvent({
  type: 'recipe.deleted',
  version: 1,
  data: contentSnapshotSchema,
  producer: 'content',
  consumers: deletionConsumers,
  description:
    'A recipe was deleted (soft): it now behaves as not found everywhere, and the notifications about it are retracted.',
});

export const postCreated = defineEvent({
  type: 'post.created',
  version: 1,
  data: contentSnapshotSchema,
  producer: 'content',
  consumers: contentConsumers,
  description: 'A post was published.',
});

export const postDeleted = defineEvent({
  type: 'post.deleted',
  version: 1,
  data: contentSnapshotSchema,
  producer: 'content',
  consumers: deletionConsumers,
  description: 'A post was deleted (soft): the notifications about it are retracted.',
});

export const userTagged = defineEvent({
  type: 'content.user.tagged',
  version: 1,
  data: z.object({
    contentType: contentTypeSchema,
    contentId: z.uuid(),
    /** The content's author, who did the tagging. */
    actorId: z.uuid(),
    taggedUserId: z.uuid(),
    createdAt: z.iso.datetime(),
  }),
  producer: 'content',
  consumers: ['notifications'],
  description: 'A user was tagged in a recipe or post; one event per tagged user.',
});
