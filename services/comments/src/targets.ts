import { isUuid } from '@recipes/contracts';
import type { CollectionDirectory, ContentDirectory } from '@recipes/directory';
import type { CommentTarget } from './repository.js';

/**
 * Who owns a target that can be commented on (it exists and is not deleted): the author of the recipe
 * or post, the owner of the collection; undefined for anything else. The directories answer from this
 * service's read models, and ask the owner about a target created a moment ago.
 */
export function targetOwners(content: ContentDirectory, collections: CollectionDirectory) {
  return async ({ type, id }: CommentTarget): Promise<string | undefined> => {
    if (!isUuid(id)) return undefined;
    if (type === 'collection') {
      const collection = await collections.find(id);
      return collection && !collection.deleted ? collection.ownerId : undefined;
    }
    const item = await content.find(type, id);
    return item && !item.deleted ? item.authorId : undefined;
  };
}

export type TargetOwner = ReturnType<typeof targetOwners>;
