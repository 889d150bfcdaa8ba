import type { UserSnapshot } from '@recipes/contracts';
import Fastify from 'fastify';

/**
 * Stands in for the users service's internal look-ups (the contract itself is checked by the users-api
 * pact): it knows the users registered through `register`, and records every request that reaches it.
 */
export async function usersStub() {
  const registered: UserSnapshot[] = [];
  const requests: { url: string; requestId: string | undefined }[] = [];
  let down = false;
  const named = (user: UserSnapshot, name: string) => user.username.toLowerCase() === name.toLowerCase();

  const server = Fastify();
  server.addHook('onRequest', async (request, reply) => {
    requests.push({ url: request.url, requestId: request.headers['x-request-id'] as string | undefined });
    if (down) await reply.code(500).send({ status: 500 });
  });
  server.get<{ Params: { id: string } }>('/internal/users/:id', async (request, reply) => {
    const user = registered.find((u) => u.id === request.params.id || named(u, request.params.id));
    return user ? { user } : reply.code(404).send({ status: 404 });
  });
  server.get<{ Querystring: { usernames: string } }>('/internal/users', async (request) => {
    const names = request.query.usernames.split(',');
    return { users: registered.filter((user) => names.some((name) => named(user, name))) };
  });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });

  return {
    url,
    requests,
    register: (user: UserSnapshot) => void registered.push(user),
    /** While true, every look-up fails with 500. */
    setDown: (value: boolean) => {
      down = value;
    },
    close: () => server.close(),
  };
}

export type UsersStub = Awaited<ReturnType<typeof usersStub>>;
