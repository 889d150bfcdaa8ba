import { exportPage, exportPageQuery, exportUserParams, idParams } from '@recipes/contracts';
import { type App, notFound, problemResponses } from '@recipes/http';
import type { Collections } from '../../collections.js';
import type { DataExport } from '../../data-export.js';
import { collectionSchema, internalCollectionResponse, savedItemSchema } from '../../schemas.js';

/**
 * For the comments service, whose read model has not yet heard of a collection created a moment ago
 * (read-your-writes, docs/architecture.md §4). Served on the internal listener only, never on the public port.
 */
export default async function internalRoutes(
  app: App,
  { collections, dataExport }: { collections: Collections; dataExport: DataExport },
) {
  app.get(
    '/:id',
    {
      schema: {
        params: idParams,
        response: { 200: internalCollectionResponse, ...problemResponses(404) },
      },
    },
    async (request) => {
      const collection = await collections.snapshot(request.params.id);
      if (!collection) throw notFound('Collection not found');
      return { collection };
    },
  );

  // A user's own collections and saved items, page by page, for their data export (docs/api.md §11.2).
  app.get(
    '/export/:userId/collections',
    {
      schema: {
        params: exportUserParams,
        querystring: exportPageQuery,
        response: { 200: exportPage(collectionSchema), ...problemResponses(400) },
      },
    },
    async ({ params, query }) => dataExport.collections(params.userId, query),
  );

  app.get(
    '/export/:userId/saved-items',
    {
      schema: {
        params: exportUserParams,
        querystring: exportPageQuery,
        response: { 200: exportPage(savedItemSchema), ...problemResponses(400) },
      },
    },
    async ({ params, query }) => dataExport.savedItems(params.userId, query),
  );
}
