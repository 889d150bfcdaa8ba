import { recipeDeleted } from '@recipes/contracts';
import type { ContentDirectory } from '@recipes/directory';
import { type EventHandler, on } from '@recipes/messaging';
import type { DeletedTargets } from '../../deleted-targets.js';

/** A deleted recipe takes no more comments (content directory), and loses those it has. */
export const recipeDeletedHandler = (content: ContentDirectory, deleted: DeletedTargets): EventHandler =>
  on(recipeDeleted, async (recipe, event) => {
    await content.remember('recipe', recipe, event);
    await deleted.removeCommentsOn({ type: 'recipe', id: recipe.id }, event.correlationId);
  });
