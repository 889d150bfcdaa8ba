import type { EventHandler } from '@recipes/messaging';
import type { Deletions } from '../../deletions.js';
import { userErasedHandlers } from './user-erased.js';

/** Every event this service consumes: each erasing service's confirmation of its part of a deleted account. */
export function handlers({ deletions }: { deletions: Deletions }): EventHandler[] {
  return userErasedHandlers(deletions);
}
