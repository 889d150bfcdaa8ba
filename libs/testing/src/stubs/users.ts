import { newId, type UserSnapshot } from '@recipes/contracts';
import { neighbourServer, notFoundBody } from './neighbour.js';

/**
 * Stands in for the users service's internal look-ups (the users-api pact holds the real service to the same
 * answers): it knows exactly the users a test registered there, which no event has announced yet.
 */
export async function stubUsersService() {
  const users = new Map<string, UserSnapshot>();
  const named = (name: string) =>
    [...users.values()].find((user) => user.username.toLowerCase() === name.toLowerCase());
  const neighbour = await neighbourServer((server) => {
    server.get<{ Params: { id: string } }>('/internal/users/:id', async (request, reply) => {
      const user = users.get(request.params.id) ?? named(request.params.id);
      return user ? { user } : reply.code(404).send(notFoundBody);
    });
    server.get<{ Querystring: { usernames: string } }>('/internal/users', async (request, reply) => {
      const names = request.query.usernames.split(',');
      // As the users service does: more than 50 names in one look-up is a bad request.
      if (names.length > 50) return reply.code(400).send({ status: 400 });
      return { users: names.map(named).filter((user) => user !== undefined) };
    });
  });
  return {
    ...neighbour,
    /** A user the users service has registered a moment ago: a new one by name, or the given snapshot. */
    register(user: string | UserSnapshot): UserSnapshot {
      const snapshot = typeof user === 'string' ? { id: newId(), username: user, avatarUrl: null, revision: 0 } : user;
      users.set(snapshot.id, snapshot);
      return snapshot;
    },
  };
}

export type UsersServiceStub = Awaited<ReturnType<typeof stubUsersService>>;
