import { type ContentSnapshot, type ContentType, newId } from '@recipes/contracts';
import { neighbourServer, notFoundBody } from './neighbour.js';

/** Stands in for the content service's internal look-ups (its pact holds the real one to the same answers). */
export async function stubContentService() {
  const items = new Map<string, ContentSnapshot & { contentType: ContentType }>();
  const neighbour = await neighbourServer((server) => {
    server.get<{ Params: { kind: string; id: string } }>('/internal/content/:kind/:id', async (request, reply) => {
      const item = items.get(request.params.id);
      if (!item || `${item.contentType}s` !== request.params.kind) return reply.code(404).send(notFoundBody);
      const { contentType: _type, ...content } = item;
      return { content };
    });
  });
  return {
    ...neighbour,
    /** A recipe or post the content service has just published, by `authorId` or someone else. */
    publish(contentType: ContentType, authorId = newId(), overrides: Partial<ContentSnapshot> = {}): ContentSnapshot {
      const item: ContentSnapshot = {
        id: newId(),
        authorId,
        title: `A ${contentType}`,
        coverImageUrl: null,
        deleted: false,
        revision: 0,
        createdAt: new Date().toISOString(),
        ...overrides,
      };
      items.set(item.id, { ...item, contentType });
      return item;
    },
  };
}

export type ContentServiceStub = Awaited<ReturnType<typeof stubContentService>>;
