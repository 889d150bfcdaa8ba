import { type ContentType, forbidden, type ListPosition, type ListRequest, newId, notFound } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { ContentDirectory, UserDirectory } from '@recipes/directory';
import * as repository from './repository/saved-items.js';
import type { SavedItemFilter, SavedItemRow } from './repository/saved-items.js';
import { requireUser } from './users.js';

export interface SavedItemsDependencies {
  pool: Pool;
  users: UserDirectory;
  content: ContentDirectory;
  /** SAVED_ITEMS_VISIBILITY: whether anyone may list a user's saved items, or only that user. */
  visibility: 'public' | 'owner';
}

/** Saving posts and recipes, unsaving them, and a user's listing of them. */
export function savedItems({ pool, users, content, visibility }: SavedItemsDependencies) {
  return {
    /** Saves content for the user; `created` is false when they had saved it already (the same item then). */
    async save(
      userId: string,
      contentType: ContentType,
      contentId: string,
    ): Promise<{ item: SavedItemRow; created: boolean }> {
      // Content created a moment ago is not in the read model yet: the directory then asks the content service.
      const known = await content.find(contentType, contentId);
      if (!known || known.deleted) throw notFound('Content not found');
      return withTransaction(pool, async (tx) => {
        if (!(await repository.lockLiveContent(tx, contentType, contentId))) throw notFound('Content not found');
        const inserted = await repository.insertSavedItem(tx, { id: newId(), userId, contentType, contentId });
        // Not inserted: a save of the same content has committed (ON CONFLICT waited for it), so this statement sees
        // it.
        const id = inserted?.id ?? (await repository.findSavedItemOfContent(tx, userId, contentType, contentId))!.id;
        return { item: (await repository.findSavedItemRow(tx, id))!, created: inserted !== undefined };
      });
    },

    /** The owner's only; it leaves every collection it was in. */
    async unsave(id: string, callerId: string): Promise<void> {
      const item = await repository.findSavedItem(pool, id);
      if (!item) throw notFound('Saved item not found');
      if (item.userId !== callerId) throw forbidden('Only the owner can unsave this item');
      if (!(await repository.deleteSavedItem(pool, id))) throw notFound('Saved item not found');
    },

    /** A user's saved items; `caller` is who asks (undefined without a token), for the owner-only policy. */
    async list(
      filter: SavedItemFilter,
      request: ListRequest,
      caller: string | undefined,
    ): Promise<{ rows: SavedItemRow[]; total: number; next: ListPosition | null }> {
      await requireUser(users, filter.userId);
      if (visibility === 'owner' && caller !== filter.userId)
        throw forbidden('Only the owner can see these saved items');
      return repository.findSavedItemPage(pool, filter, request);
    },
  };
}

export type SavedItems = ReturnType<typeof savedItems>;
