import { z } from 'zod';
import { defineEvent } from './envelope.js';

/** What the comments service keeps of a collection: whether it can be commented on. */
export const collectionSnapshotSchema = z.object({
  id: z.uuid(),
  ownerId: z.uuid(),
  name: z.string(),
  deleted: z.boolean(),
  revision: z.number().int().nonnegative(),
  createdAt: z.iso.datetime(),
});
export type CollectionSnapshot = z.infer<typeof collectionSnapshotSchema>;

export const collectionCreated = defineEvent({
  type: 'collection.created',
  version: 1,
  data: collectionSnapshotSchema,
  producer: 'collections',
  consumers: ['comments'],
  description: 'A collection was created.',
});

export const collectionDeleted = defineEvent({
  type: 'collection.deleted',
  version: 1,
  data: collectionSnapshotSchema,
  producer: 'collections',
  consumers: ['comments', 'notifications'],
  description:
    'A collection was deleted (soft): its comments give 404 afterwards, and the notifications about it are retracted.',
});
