import { idParams } from '@recipes/contracts';
import { callerOf } from '@recipes/auth';
import { type App, problemResponses } from '@recipes/http';
import { type Idempotency, idempotencyKeyHeaders } from '@recipes/idempotency';
import type { SavedItems } from '../../saved-items.js';
import { messageResponse, saveBody, savedItemResponse } from '../../schemas.js';
import type { Views } from '../../views.js';

/** Saving and unsaving posts and recipes: `/api/saved-items/...`. */
export default async function savedItemRoutes(
  app: App,
  { savedItems, views, idempotency }: { savedItems: SavedItems; views: Views; idempotency: Idempotency },
) {
  // '' rather than '/': the route is the prefix itself, as the API document should say.
  app.post(
    '',
    {
      onRequest: app.auth.required,
      ...idempotency.hooks,
      config: { location: ({ savedItem }) => `/api/saved-items/${savedItem.id}` },
      schema: {
        summary: 'Save a post or recipe (200 with the existing item when it is saved already)',
        operationId: 'saveItem',
        tags: ['saved items'],
        security: [{ bearerAuth: [] }],
        headers: idempotencyKeyHeaders,
        body: saveBody,
        response: {
          200: savedItemResponse,
          201: savedItemResponse,
          ...problemResponses(400, 401, 404, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { contentType, contentId } = request.body;
      const { item, created } = await savedItems.save(callerOf(request).id, contentType, contentId);
      const [savedItem] = await views.savedItems([item]);
      return reply.code(created ? 201 : 200).send({ savedItem: savedItem! });
    },
  );

  app.delete(
    '/:id',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Unsave an item; it leaves every collection it was in',
        operationId: 'unsaveItem',
        tags: ['saved items'],
        security: [{ bearerAuth: [] }],
        params: idParams,
        response: { 200: messageResponse, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => {
      await savedItems.unsave(request.params.id, callerOf(request).id);
      return { message: 'Item unsaved' };
    },
  );
}
