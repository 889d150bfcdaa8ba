import {
  collectionsUserErased,
  commentsUserErased,
  contentUserErased,
  notificationsUserErased,
} from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { Deletions } from '../../deletions.js';

/**
 * Each erasing service's confirmation of its part of a deleted account, recorded on its tombstone (docs/api.md §11.2).
 */
export const userErasedHandlers = (deletions: Deletions): EventHandler[] => [
  on(contentUserErased, (erased, event) => deletions.confirmed(erased, event)),
  on(commentsUserErased, (erased, event) => deletions.confirmed(erased, event)),
  on(collectionsUserErased, (erased, event) => deletions.confirmed(erased, event)),
  on(notificationsUserErased, (erased, event) => deletions.confirmed(erased, event)),
];
