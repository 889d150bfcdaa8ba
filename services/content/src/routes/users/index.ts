import { pageQuery } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import { z } from 'zod';
import type { Recipes } from '../../recipes.js';
import { recipeListResponse } from '../../schemas.js';
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
        querystring: pageQuery(12),
        response: { 200: recipeListResponse, ...problemResponses(400, 401, 404, 503) },
      },
    },
    async (request) => recipes.listByAuthor(request.params.id, request.query, request.caller?.id),
  );
}
