import { CollectionDirectory, ContentDirectory, RelationDirectory, UserDirectory } from '@recipes/directory';
import { Idempotency } from '@recipes/idempotency';
import { type PartsContext, sharedStoreSlot } from '@recipes/runtime';
import { blocks } from './blocks.js';
import { comments } from './comments.js';
import { type CommentsConfig } from './config.js';
import { dataExport } from './data-export.js';
import { deletedTargets } from './deleted-targets.js';
import { erasureSteps } from './erasure.js';
import { targetOwners } from './targets.js';

/** The comments domain, and what it knows of users, recipes and posts, collections, and blocks (libs/directory). */
export function parts({ config, pool }: PartsContext<CommentsConfig>) {
  const directories = {
    users: new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL }),
    content: new ContentDirectory({ pool, contentUrl: config.CONTENT_INTERNAL_URL }),
    collections: new CollectionDirectory({ pool, collectionsUrl: config.COLLECTIONS_INTERNAL_URL }),
    relations: new RelationDirectory(pool),
  };
  // Filled by the routes, which open it: the erasure forgets a user's counts there.
  const shared = sharedStoreSlot();
  return {
    directories,
    shared,
    comments: comments({
      pool,
      users: directories.users,
      blocks: blocks(directories.relations),
      targetOwner: targetOwners(directories.content, directories.collections),
    }),
    deletedTargets: deletedTargets(pool),
    idempotency: new Idempotency(pool),
    dataExport: dataExport(pool),
    erasure: { pool, service: 'comments' as const, steps: erasureSteps(pool, shared) },
  };
}

export type CommentsParts = ReturnType<typeof parts>;
