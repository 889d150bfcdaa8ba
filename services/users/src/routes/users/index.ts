import { callerOf } from '@recipes/auth';
import { type App, notFound, problemResponses, unauthorized } from '@recipes/http';
import { z } from 'zod';
import { type Accounts, toAuthor } from '../../accounts.js';
import { profileChangeBody, userResponse } from '../../schemas.js';

/** Profiles: `/api/users/...`. */
export default async function userRoutes(app: App, { accounts }: { accounts: Accounts }) {
  app.get(
    '/me',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s own profile',
        operationId: 'getMyProfile',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: { 200: userResponse, ...problemResponses(401) },
      },
    },
    async (request) => {
      const user = await accounts.find(callerOf(request).id);
      // A well-signed token for an account that no longer exists proves nothing.
      if (!user) throw unauthorized('The token is invalid or expired');
      return { user: toAuthor(user) };
    },
  );

  app.patch(
    '/me',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Change the caller’s avatar',
        operationId: 'updateMyProfile',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        body: profileChangeBody,
        response: { 200: userResponse, ...problemResponses(400, 401, 413, 415) },
      },
    },
    async (request) => {
      const user = await accounts.changeAvatar(callerOf(request).id, request.body.avatarUrl, request.id);
      if (!user) throw unauthorized('The token is invalid or expired');
      return { user: toAuthor(user) };
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'A user’s profile, by id or by username (any case)',
        operationId: 'getUser',
        tags: ['users'],
        security: [],
        params: z.object({ id: z.string().max(100) }),
        response: { 200: userResponse, ...problemResponses(404) },
      },
    },
    async (request) => {
      const user = await accounts.find(request.params.id);
      if (!user) throw notFound('User not found');
      return { user: toAuthor(user) };
    },
  );
}
