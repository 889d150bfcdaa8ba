import { userErasedEvents } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { Deletions } from '../../deletions.js';

/** Every event this service consumes: each erasing service's confirmation of its part of a deleted account. */
export function handlers({ deletions }: { deletions: Deletions }): EventHandler[] {
  return Object.values(userErasedEvents).map((definition) => on(definition, (erased, event) => deletions.confirmed(erased, event)));
}
