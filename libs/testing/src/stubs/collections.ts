import { type CollectionSnapshot, newId } from '@recipes/contracts';
import { neighbourServer, notFoundBody } from './neighbour.js';

/** Stands in for the collections service's internal look-ups (its pact holds the real one to the same answers). */
export async function stubCollectionsService() {
  const collections = new Map<string, CollectionSnapshot>();
  const neighbour = await neighbourServer((server) => {
    server.get<{ Params: { id: string } }>('/internal/collections/:id', async (request, reply) => {
      const collection = collections.get(request.params.id);
      return collection ? { collection } : reply.code(404).send(notFoundBody);
    });
  });
  return {
    ...neighbour,
    /** A collection the collections service has just created, by `ownerId` or someone else. */
    create(ownerId = newId()): CollectionSnapshot {
      const collection = {
        id: newId(),
        ownerId,
        name: 'Winter light',
        deleted: false,
        revision: 0,
        createdAt: new Date().toISOString(),
      };
      collections.set(collection.id, collection);
      return collection;
    },
  };
}

export type CollectionsServiceStub = Awaited<ReturnType<typeof stubCollectionsService>>;
