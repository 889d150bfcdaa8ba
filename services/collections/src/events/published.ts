import { collectionCreated, collectionDeleted, collectionsUserErased } from '@recipes/contracts';
import type { PublishedEvent } from '@recipes/runtime';

/** Every event this service writes to its outbox, and where. */
export const published: PublishedEvent[] = [
  { event: collectionCreated, from: '`create` in src/collections.ts' },
  { event: collectionDeleted, from: '`delete` in src/collections.ts' },
  {
    event: collectionsUserErased,
    from: '`eraseUser` in @recipes/runtime, once src/erasure.ts has erased a deleted user',
  },
];
