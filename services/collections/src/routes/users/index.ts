import { idParams, listPagination, listRequest } from '@recipes/contracts';
import { type App, problemResponses, withListLinks } from '@recipes/http';
import type { Collections } from '../../collections.js';
import type { SavedItems } from '../../saved-items.js';
import {
  collectionCursor,
  collectionsQuery,
  collectionsResponse,
  savedItemCursor,
  savedItemsQuery,
  savedItemsResponse,
} from '../../schemas.js';
import type { Views } from '../../views.js';

export interface UserRoutesOptions {
  savedItems: SavedItems;
  collections: Collections;
  views: Views;
  /** Whether listing someone's saved items needs a token at all (SAVED_ITEMS_VISIBILITY=owner). */
  savedItemsNeedToken: boolean;
}

/** A user's saved items and collections: `/api/users/{id}/...`. */
export default async function userRoutes(
  app: App,
  { savedItems, collections, views, savedItemsNeedToken }: UserRoutesOptions,
) {
  // Optional unless SAVED_ITEMS_VISIBILITY=owner; either way a bad token is 401 (the auth plugin).
  const savedItemsSecurity: Array<Record<string, string[]>> = savedItemsNeedToken
    ? [{ bearerAuth: [] }]
    : [{}, { bearerAuth: [] }];
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
    async (request, reply) => {
      const { standalone, content_type: contentType } = request.query;
      const filter = { userId: request.params.id, standaloneOnly: standalone, ...(contentType ? { contentType } : {}) };
      const { rows, total, next } = await savedItems.list(filter, listRequest(request.query), request.caller?.id);
      return withListLinks(request, reply, {
        savedItems: await views.savedItems(rows),
        pagination: listPagination(request.query, total, next, savedItemCursor),
      });
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
        querystring: collectionsQuery,
        response: { 200: collectionsResponse, ...problemResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const {
        collections: found,
        total,
        next,
      } = await collections.listOwnedBy(request.params.id, listRequest(request.query));
      return withListLinks(request, reply, {
        collections: await views.collections(found),
        pagination: listPagination(request.query, total, next, collectionCursor),
      });
    },
  );
}
