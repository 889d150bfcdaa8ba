import { idParams } from '@recipes/contracts';
import { callerOf } from '@recipes/auth';
import { type App, type LimitPolicy, problemResponses } from '@recipes/http';
import { type Idempotency, idempotencyKeyHeaders } from '@recipes/idempotency';
import type { Recipes } from '../../recipes.js';
import {
  favoriteResponse,
  idsQuery,
  messageResponse,
  recipeDraftBody,
  recipeResponse,
  recipesResponse,
  repostResponse,
} from '../../schemas.js';
import { spendingOn } from '../notification-budget.js';
import { tokenOptional, tokenRequired } from '../security.js';

const tags = ['recipes'];

/** Recipes, their favorites and reposts: `/api/recipes/...`. */
export default async function recipeRoutes(
  app: App,
  {
    recipes,
    notificationBudget,
    idempotency,
  }: { recipes: Recipes; notificationBudget: LimitPolicy; idempotency: Idempotency },
) {
  // '' rather than '/': the path is exactly the prefix, as the gateway routes it and the document shows it.
  app.post(
    '',
    {
      onRequest: app.auth.required,
      ...idempotency.hooks,
      config: { location: ({ recipe }) => `/api/recipes/${recipe.id}` },
      schema: {
        summary: 'Publish a recipe',
        operationId: 'createRecipe',
        tags,
        security: tokenRequired,
        headers: idempotencyKeyHeaders,
        body: recipeDraftBody,
        response: { 201: recipeResponse, ...problemResponses(400, 401, 409, 413, 415, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const recipe = await recipes.publish(
        callerOf(request).id,
        request.body,
        request.id,
        spendingOn(notificationBudget, reply),
      );
      request.log.info({ recipeId: recipe.id }, 'recipe published');
      return reply.code(201).send({ recipe });
    },
  );

  // Only by ids: a user's recipes are listed, and paged, under /api/users/{id}/recipes.
  app.get(
    '',
    {
      schema: {
        summary: 'Recipes by id, in the order asked; those missing or deleted left out',
        operationId: 'getRecipesByIds',
        tags,
        security: tokenOptional,
        querystring: idsQuery,
        response: { 200: recipesResponse, ...problemResponses(400, 401) },
      },
    },
    async (request) => ({ recipes: await recipes.findMany(request.query.ids, request.caller?.id) }),
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'A recipe; favorited and reposted are the caller’s',
        operationId: 'getRecipe',
        tags,
        security: tokenOptional,
        params: idParams,
        response: { 200: recipeResponse, ...problemResponses(401, 404) },
      },
    },
    async (request) => ({ recipe: await recipes.find(request.params.id, request.caller?.id) }),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Delete one’s own recipe',
        operationId: 'deleteRecipe',
        tags,
        security: tokenRequired,
        params: idParams,
        response: { 200: messageResponse, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => {
      await recipes.remove(request.params.id, callerOf(request).id, request.id);
      return { message: 'Recipe deleted' };
    },
  );

  // PUT adds, DELETE takes back; both are idempotent and answer with the count after the change.
  for (const active of [true, false]) {
    const method = active ? 'PUT' : 'DELETE';
    app.route({
      method,
      url: '/:id/favorite',
      onRequest: app.auth.required,
      schema: {
        summary: active ? 'Favorite a recipe' : 'Take back a favorite',
        operationId: active ? 'favoriteRecipe' : 'unfavoriteRecipe',
        tags,
        security: tokenRequired,
        params: idParams,
        response: { 200: favoriteResponse, ...problemResponses(401, 404) },
      },
      handler: async (request) => ({
        favorited: active,
        favoriteCount: await recipes.react('favorite', request.params.id, callerOf(request).id, active),
      }),
    });
    app.route({
      method,
      url: '/:id/repost',
      onRequest: app.auth.required,
      schema: {
        summary: active ? 'Repost a recipe' : 'Take back a repost',
        operationId: active ? 'repostRecipe' : 'unrepostRecipe',
        tags,
        security: tokenRequired,
        params: idParams,
        response: { 200: repostResponse, ...problemResponses(401, 404) },
      },
      handler: async (request) => ({
        reposted: active,
        repostCount: await recipes.react('repost', request.params.id, callerOf(request).id, active),
      }),
    });
  }
}
