import { type App, notFound, problemResponses } from '@recipes/http';
import { z } from 'zod';
import { type Accounts, toSnapshot } from '../../accounts.js';
import { internalUserResponse, internalUsersResponse } from '../../schemas.js';

/**
 * Look-ups for other services whose read models have not yet heard of a user (read-your-writes,
 * docs/architecture.md §4). Served on the internal listener only, never on the public port.
 */
export default async function internalRoutes(app: App, { accounts }: { accounts: Accounts }) {
  app.get(
    '/',
    {
      schema: {
        querystring: z.object({
          usernames: z
            .string()
            .transform((list) => [...new Set(list.split(',').filter(Boolean))])
            .pipe(z.array(z.string().max(100)).max(50)),
        }),
        response: { 200: internalUsersResponse, ...problemResponses(400) },
      },
    },
    async (request) => ({ users: (await accounts.findByUsernames(request.query.usernames)).map(toSnapshot) }),
  );

  app.get(
    '/:id',
    {
      schema: {
        params: z.object({ id: z.string().max(100) }),
        response: { 200: internalUserResponse, ...problemResponses(404) },
      },
    },
    async (request) => {
      const user = await accounts.find(request.params.id);
      if (!user) throw notFound('User not found');
      return { user: toSnapshot(user) };
    },
  );
}
