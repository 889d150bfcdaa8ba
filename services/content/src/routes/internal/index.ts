import { exportPage, exportPageQuery, exportUserParams, idParams } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import type { DataExport } from '../../data-export.js';
import type { Posts } from '../../posts.js';
import type { Recipes } from '../../recipes.js';
import { internalContentResponse, postSchema, recipeSummarySchema } from '../../schemas.js';

/**
 * Look-ups for services whose read models have not yet heard of a recipe or post (read-your-writes,
 * docs/architecture.md §4). Deleted content is answered too, marked `deleted` with its revision, so that a caller
 * that missed the deletion learns of it; 404 means it never existed. Served on the internal listener
 * only, never on the public port.
 */
export default async function internalRoutes(
  app: App,
  { recipes, posts, dataExport }: { recipes: Recipes; posts: Posts; dataExport: DataExport },
) {
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

  // A user's own recipes and posts, page by page, for their data export (docs/api.md §11.2).
  app.get(
    '/export/:userId/recipes',
    {
      schema: {
        params: exportUserParams,
        querystring: exportPageQuery,
        response: { 200: exportPage(recipeSummarySchema), ...problemResponses(400) },
      },
    },
    async ({ params, query }) => dataExport.recipes(params.userId, query),
  );

  app.get(
    '/export/:userId/posts',
    {
      schema: {
        params: exportUserParams,
        querystring: exportPageQuery,
        response: { 200: exportPage(postSchema), ...problemResponses(400) },
      },
    },
    async ({ params, query }) => dataExport.posts(params.userId, query),
  );
}
