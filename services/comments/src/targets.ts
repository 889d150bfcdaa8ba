import type { CollectionDirectory, ContentDirectory } from '@recipes/directory';
import { z } from 'zod';
import type { CommentTarget } from './repository.js';

const uuid = z.uuid();

/**
 * Whether a target can be commented on: it exists and is not deleted. The directories answer from
 * this service's read models, and ask the owner about a target created a moment ago.
 */
export function targetExists(content: ContentDirectory, collections: CollectionDirectory) {
  return async ({ type, id }: CommentTarget): Promise<boolean> => {
    // Every target's id is a UUID: anything else names nothing, and is not worth a look-up.
    if (!uuid.safeParse(id).success) return false;
    const found = type === 'collection' ? await collections.find(id) : await content.find(type, id);
    return found !== undefined && !found.deleted;
  };
}

export type TargetExists = ReturnType<typeof targetExists>;
