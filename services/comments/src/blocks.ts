import { type CommentTargetType, forbidden } from '@recipes/contracts';
import type { RelationDirectory } from '@recipes/directory';

/** The refusal of a comment on what someone who blocks its author owns. */
export const blockedFromCommenting = (targetType: CommentTargetType) =>
  forbidden(`You cannot comment on this ${targetType}`);

/**
 * What a block keeps the blocked user from here (docs/api.md §10), by the relation read model: commenting
 * on the blocker's recipes, posts and collections, and mentioning the blocker. They are told no more than
 * a 403: a mention of the blocker is left out of the store as an unknown name is.
 */
export function blocks(relations: RelationDirectory) {
  return {
    /** 403 when the owner of what `callerId` comments on blocks them. */
    async allowComment(ownerId: string, callerId: string, targetType: CommentTargetType): Promise<void> {
      if (await relations.blocks(ownerId, callerId)) throw blockedFromCommenting(targetType);
    },

    /** Those of `userIds` who block `authorId`, whom the author may not mention. */
    blockersOf: (authorId: string, userIds: string[]): Promise<Set<string>> => relations.blockersOf(authorId, userIds),
  };
}

export type Blocks = ReturnType<typeof blocks>;
