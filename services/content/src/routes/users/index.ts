import { listPagination, listRequest } from '@recipes/contracts';
import { type App, problemResponses, withListLinks } from '@recipes/http';
import { z } from 'zod';
import type { Recipes } from '../../recipes.js';
import { recipeCursor, recipeListQuery, recipeListResponse } from '../../schemas.js';
import { tokenOptional } from '../security.js';

/** A user's recipes: `/api/users/{id}/recipes` (the rest of `/api/users` is the users service's). */
export default async function userRoutes(app: App, { recipes }: { recipes: Recipes }) {
  app.get(
    '/:id/recipes',
    {
      schema: {
        summary: 'A user’s recipes, newest first; favorited and reposted are the caller’s',
        operationId: 'listUserRecipes',
        tags: ['recipes'],
        security: tokenOptional,
        // Any string: one that names nobody is a 404, decided after the query is validated (400 comes first).
        params: z.object({ id: z.string().describe('A username (any case) or a user id') }),
        querystring: recipeListQuery,
        response: { 200: recipeListResponse, ...problemResponses(400, 401, 404, 503) },
      },
    },
    async (request, reply) => {
      const {
        recipes: found,
        total,
        next,
      } = await recipes.listByAuthor(request.params.id, listRequest(request.query), request.caller?.id);
      return withListLinks(request, reply, {
        recipes: found,
        pagination: listPagination(request.query, total, next, recipeCursor),
      });
    },
  );
}
