import { pageQuery, pagination } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import type { Collections } from '../../collections.js';
import type { SavedItems } from '../../saved-items.js';
import { collectionsResponse, idParams, savedItemsQuery, savedItemsResponse } from '../../schemas.js';
import type { Views } from '../../views.js';

export interface UserRoutesOptions {
  savedItems: SavedItems;
  collections: Collections;
  views: Views;
  /** Whether listing someone's saved items needs a token at all (SAVED_ITEMS_VISIBILITY=owner). */
  savedItemsNeedToken: boolean;
}

/** A user's saved items and collections: `/api/users/{id}/...`. */
export default async function userRoutes(app: App, { savedItems, collections, views, savedItemsNeedToken }: UserRoutesOptions) {
  // Optional unless SAVED_ITEMS_VISIBILITY=owner; either way a bad token is 401 (the auth plugin).
  const savedItemsSecurity: Array<Record<string, string[]>> = savedItemsNeedToken ? [{ bearerAuth: [] }] : [{}, { bearerAuth: [] }];
  app.get(
    '/:id/saved-items',
    {
      ...(savedItemsNeedToken ? { onRequest: app.auth.required } : {}),
      schema: {
        summary: 'A user’s saved items, newest first',
        operationId: 'listUserSavedItems',
        tags: ['saved items'],
        security: savedItemsSecurity,
        params: idParams,
        querystring: savedItemsQuery,
        response: { 200: savedItemsResponse, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { page, limit, standalone, content_type: contentType } = request.query;
      const filter = { userId: request.params.id, standaloneOnly: standalone, ...(contentType ? { contentType } : {}) };
      const { rows, total } = await savedItems.list(filter, { page, limit }, request.caller?.id);
      return { savedItems: await views.savedItems(rows), pagination: pagination({ page, limit }, total) };
    },
  );

  app.get(
    '/:id/collections',
    {
      schema: {
        summary: 'A user’s collections, newest first',
        operationId: 'listUserCollections',
        tags: ['collections'],
        security: [{}, { bearerAuth: [] }],
        params: idParams,
        querystring: pageQuery(12),
        response: { 200: collectionsResponse, ...problemResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { collections: found, total } = await collections.listOwnedBy(request.params.id, request.query);
      return { collections: await views.collections(found), pagination: pagination(request.query, total) };
    },
  );
}
