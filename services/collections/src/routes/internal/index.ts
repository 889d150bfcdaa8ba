import { idParams } from '@recipes/contracts';
import { type App, notFound, problemResponses } from '@recipes/http';
import type { Collections } from '../../collections.js';
import { internalCollectionResponse } from '../../schemas.js';

/**
 * For the comments service, whose read model has not yet heard of a collection created a moment ago
 * (read-your-writes, docs/architecture.md §4). Served on the internal listener only, never on the public port.
 */
export default async function internalRoutes(app: App, { collections }: { collections: Collections }) {
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
}
