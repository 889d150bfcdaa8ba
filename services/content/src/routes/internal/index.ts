import { idParams } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import type { Posts } from '../../posts.js';
import type { Recipes } from '../../recipes.js';
import { internalContentResponse } from '../../schemas.js';

/**
 * Look-ups for services whose read models have not yet heard of a recipe or post (read-your-writes,
 * docs/architecture.md §4). Deleted content is answered too, marked `deleted` with its revision, so that a caller
 * that missed the deletion learns of it; 404 means it never existed. Served on the internal listener
 * only, never on the public port.
 */
export default async function internalRoutes(app: App, { recipes, posts }: { recipes: Recipes; posts: Posts }) {
  app.get(
    '/recipes/:id',
    { schema: { params: idParams, response: { 200: internalContentResponse, ...problemResponses(404) } } },
    async (request) => ({ content: await recipes.snapshot(request.params.id) }),
  );

  app.get(
    '/posts/:id',
    { schema: { params: idParams, response: { 200: internalContentResponse, ...problemResponses(404) } } },
    async (request) => ({ content: await posts.snapshot(request.params.id) }),
  );
}
