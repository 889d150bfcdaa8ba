import { callerOf } from '@recipes/auth';
import { idParams, listPagination, listRequest } from '@recipes/contracts';
import { type App, problemResponses, withListLinks } from '@recipes/http';
import { type Idempotency, idempotencyKeyHeaders } from '@recipes/idempotency';
import type { Collections } from '../../collections.js';
import type { CollectionRecord } from '../../repository/collections.js';
import {
  collectionBody,
  collectionItemBody,
  collectionItemCursor,
  collectionItemsQuery,
  collectionResponse,
  messageResponse,
  savedItemsResponse,
} from '../../schemas.js';
import type { Views } from '../../views.js';

/** Collections and the saved items in them: `/api/collections/...`. */
export default async function collectionRoutes(
  app: App,
  { collections, views, idempotency }: { collections: Collections; views: Views; idempotency: Idempotency },
) {
  const present = async (record: CollectionRecord) => ({ collection: (await views.collections([record]))[0]! });

  // '' rather than '/': the route is the prefix itself, as the API document should say.
  app.post(
    '',
    {
      onRequest: app.auth.required,
      ...idempotency.hooks,
      config: { location: ({ collection }) => `/api/collections/${collection.id}` },
      schema: {
        summary: 'Create a collection',
        operationId: 'createCollection',
        tags: ['collections'],
        security: [{ bearerAuth: [] }],
        headers: idempotencyKeyHeaders,
        body: collectionBody,
        response: { 201: collectionResponse, ...problemResponses(400, 401, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const collection = await collections.create(callerOf(request).id, request.body, request.id);
      request.log.info({ collectionId: collection.id }, 'collection created');
      return reply.code(201).send(await present(collection));
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'A collection',
        operationId: 'getCollection',
        tags: ['collections'],
        // A token is optional here, but a bad one is 401 (docs/api.md §2).
        security: [{}, { bearerAuth: [] }],
        params: idParams,
        response: { 200: collectionResponse, ...problemResponses(401, 404) },
      },
    },
    async (request) => present(await collections.find(request.params.id)),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Delete a collection; its saved items stay saved',
        operationId: 'deleteCollection',
        tags: ['collections'],
        security: [{ bearerAuth: [] }],
        params: idParams,
        response: { 200: messageResponse, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => {
      await collections.delete(request.params.id, callerOf(request).id, request.id);
      return { message: 'Collection deleted' };
    },
  );

  app.get(
    '/:id/items',
    {
      schema: {
        summary: 'The saved items in a collection, most recently added first',
        operationId: 'listCollectionItems',
        tags: ['collections'],
        security: [{}, { bearerAuth: [] }],
        params: idParams,
        querystring: collectionItemsQuery,
        response: { 200: savedItemsResponse, ...problemResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { rows, total, next } = await collections.items(request.params.id, listRequest(request.query));
      return withListLinks(request, reply, {
        savedItems: await views.savedItems(rows),
        pagination: listPagination(request.query, total, next, collectionItemCursor),
      });
    },
  );

  app.post(
    '/:id/items',
    {
      onRequest: app.auth.required,
      ...idempotency.hooks,
      config: { location: (_body, path) => path },
      schema: {
        summary: 'Add one of the caller’s saved items to their collection',
        operationId: 'addCollectionItem',
        tags: ['collections'],
        security: [{ bearerAuth: [] }],
        headers: idempotencyKeyHeaders,
        params: idParams,
        body: collectionItemBody,
        response: { 201: messageResponse, ...problemResponses(400, 401, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      await collections.addItem(request.params.id, callerOf(request).id, request.body.savedItemId);
      return reply.code(201).send({ message: 'Item added to collection' });
    },
  );

  app.delete(
    '/:id/items',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Remove a saved item from the collection and from the caller’s saved items',
        operationId: 'removeCollectionItem',
        tags: ['collections'],
        security: [{ bearerAuth: [] }],
        params: idParams,
        body: collectionItemBody,
        response: { 200: messageResponse, ...problemResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      await collections.removeItem(request.params.id, callerOf(request).id, request.body.savedItemId);
      return { message: 'Item removed from collection' };
    },
  );
}
