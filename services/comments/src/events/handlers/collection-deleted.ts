import { collectionDeleted } from '@recipes/contracts';
import type { CollectionDirectory } from '@recipes/directory';
import { type EventHandler, on } from '@recipes/messaging';
import type { DeletedTargets } from '../../deleted-targets.js';

/** A deleted collection takes no more comments (collection directory), and loses those it has. */
export const collectionDeletedHandler = (collections: CollectionDirectory, deleted: DeletedTargets): EventHandler =>
  on(collectionDeleted, async (collection, event) => {
    await collections.remember(collection, event);
    await deleted.removeCommentsOn({ type: 'collection', id: collection.id }, event.correlationId);
  });
