import {
  type ContentSnapshot,
  forbidden,
  newId,
  notFound,
  type ListPosition,
  type ListRequest,
  recipeCreated,
  recipeDeleted,
} from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { RelationDirectory, UserDirectory } from '@recipes/directory';
import { enqueue } from '@recipes/outbox';
import { contentEvent } from './events/content-event.js';
import { findUser } from './people.js';
import { type Reaction, setReaction } from './repository/reactions.js';
import * as repository from './repository/recipes.js';
import type { NewRecipe, RecipeSummary } from './repository/recipes.js';
import { type SpendNotifications, tagEvents, taggedUsers } from './tagging.js';

export type { RecipeSummary } from './repository/recipes.js';

/** What an author publishes: the recipe, and the names of the users they tag in it. */
export interface RecipeDraft extends Omit<NewRecipe, 'id' | 'authorId'> {
  taggedUsernames: string[];
}

/** Recipes: every change is stored together with the events that tell the other services. */
export function recipes(pool: Pool, directory: UserDirectory, relations: RelationDirectory) {
  return {
    /** Each user it tags is notified, and paid for first (`spend`): past the author's budget, nothing is published. */
    async publish(
      callerId: string,
      { taggedUsernames, ...draft }: RecipeDraft,
      correlationId: string,
      spend: SpendNotifications,
    ): Promise<RecipeSummary> {
      // Users are looked up (perhaps over HTTP) before the transaction, which then holds no lock while waiting.
      const author = await directory.caller(callerId);
      const tagged = await taggedUsers(directory, relations, author, taggedUsernames);
      return withTransaction(pool, async (tx) => {
        if (tagged.length > 0) await spend(tx, author.id, tagged.length);
        const id = newId();
        await repository.insertRecipe(tx, { id, authorId: author.id, ...draft });
        await repository.insertRecipeTags(
          tx,
          id,
          tagged.map((user) => user.id),
        );
        const snapshot = (await repository.findRecipeSnapshot(tx, id))!;
        await enqueue(
          tx,
          contentEvent(recipeCreated, snapshot, correlationId),
          ...tagEvents('recipe', snapshot, tagged, correlationId),
        );
        return (await repository.findRecipeSummary(tx, id, author.id))!;
      });
    },

    /** A recipe as `viewerId` (the caller, if any) sees it. */
    async find(id: string, viewerId: string | undefined): Promise<RecipeSummary> {
      const recipe = await repository.findRecipeSummary(pool, id, viewerId ?? null);
      if (!recipe) throw notFound('Recipe not found');
      return recipe;
    },

    /**
     * The recipes of `ids` (distinct UUIDs) as `find` shows each, in the order of `ids`; those it would answer 404
     * for (missing, deleted) are left out.
     */
    findMany: (ids: string[], viewerId: string | undefined): Promise<RecipeSummary[]> =>
      repository.findRecipeSummaries(pool, ids, viewerId ?? null),

    /** Soft: the recipe then behaves as not found everywhere, here and, through the event, elsewhere. */
    async remove(id: string, callerId: string, correlationId: string): Promise<void> {
      await withTransaction(pool, async (tx) => {
        const recipe = await repository.lockLiveRecipe(tx, id);
        if (!recipe) throw notFound('Recipe not found');
        if (recipe.authorId !== callerId) throw forbidden('Only its author can delete a recipe');
        await repository.markRecipeDeleted(tx, id);
        await enqueue(tx, contentEvent(recipeDeleted, (await repository.findRecipeSnapshot(tx, id))!, correlationId));
      });
    },

    /** Favorites or reposts (`active`), or takes that back; idempotent. The recipe's count after it. */
    async react(reaction: Reaction, id: string, userId: string, active: boolean): Promise<number> {
      const count = await setReaction(pool, reaction, id, userId, active);
      if (count === undefined) throw notFound('Recipe not found');
      return count;
    },

    /** A page of a user's recipes, newest first (by number or after a position), as `viewerId` sees them. */
    async listByAuthor(
      idOrUsername: string,
      request: ListRequest,
      viewerId: string | undefined,
    ): Promise<{ recipes: RecipeSummary[]; total: number; next: ListPosition | null }> {
      const author = await findUser(directory, idOrUsername);
      if (!author) throw notFound('User not found');
      return repository.findAuthorRecipePage(pool, author.id, viewerId ?? null, request);
    },

    /** What other services keep of a recipe; deleted ones too, marked so. */
    async snapshot(id: string): Promise<ContentSnapshot> {
      const snapshot = await repository.findRecipeSnapshot(pool, id);
      if (!snapshot) throw notFound('Recipe not found');
      return snapshot;
    },
  };
}

export type Recipes = ReturnType<typeof recipes>;
