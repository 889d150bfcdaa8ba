import {
  type CollectionSnapshot,
  type ContentSnapshot,
  type ContentType,
  newId,
  type UserSnapshot,
} from '@recipes/contracts';
import Fastify from 'fastify';

const now = () => new Date().toISOString();

/**
 * Stands in for the internal look-ups of the users, content and collections services: they know
 * exactly what the test registered or published there. The pacts in `test/pacts` hold the real
 * services to the same answers.
 */
export async function startOwners() {
  const users = new Map<string, UserSnapshot>();
  const content = new Map<string, ContentSnapshot & { contentType: ContentType }>();
  const collections = new Map<string, CollectionSnapshot>();
  const byName = (name: string) => [...users.values()].find((user) => user.username.toLowerCase() === name.toLowerCase());

  const server = Fastify();
  server.get<{ Params: { id: string } }>('/internal/users/:id', async (request, reply) => {
    const user = users.get(request.params.id) ?? byName(request.params.id);
    return user ? { user } : reply.code(404).send({ status: 404 });
  });
  server.get<{ Querystring: { usernames: string } }>('/internal/users', async (request, reply) => {
    const names = request.query.usernames.split(',');
    // As the users service does: more than 50 names in one look-up is a bad request.
    if (names.length > 50) return reply.code(400).send({ status: 400 });
    return { users: names.map(byName).filter((user) => user !== undefined) };
  });
  server.get<{ Params: { kind: string; id: string } }>('/internal/content/:kind/:id', async (request, reply) => {
    const item = content.get(request.params.id);
    if (!item || `${item.contentType}s` !== request.params.kind) return reply.code(404).send({ status: 404 });
    const { contentType: _type, ...snapshot } = item;
    return { content: snapshot };
  });
  server.get<{ Params: { id: string } }>('/internal/collections/:id', async (request, reply) => {
    const collection = collections.get(request.params.id);
    return collection ? { collection } : reply.code(404).send({ status: 404 });
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });

  return {
    url,
    /** A user the users service has registered; this service has not heard of them yet. */
    register(username: string): UserSnapshot {
      const user = { id: newId(), username, avatarUrl: null, revision: 0 };
      users.set(user.id, user);
      return user;
    },
    /** A recipe or post the content service has just published, by `authorId` or someone else. */
    publish(contentType: ContentType, authorId = newId()): ContentSnapshot {
      const item = { id: newId(), authorId, title: 'Classic Chrome street', coverImageUrl: null, deleted: false, revision: 0, createdAt: now() };
      content.set(item.id, { ...item, contentType });
      return item;
    },
    /** A collection the collections service has just created, by `ownerId` or someone else. */
    createCollection(ownerId = newId()): CollectionSnapshot {
      const collection = { id: newId(), ownerId, name: 'Winter light', deleted: false, revision: 0, createdAt: now() };
      collections.set(collection.id, collection);
      return collection;
    },
    close: () => server.close(),
  };
}

export type Owners = Awaited<ReturnType<typeof startOwners>>;
