import { callerOf } from '@recipes/auth';
import { type App, badRequest, notFound, problemResponses, unauthorized, withListLinks } from '@recipes/http';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type Accounts, toAuthor } from '../../accounts.js';
import { type RelationKind, type Relations, relatedUsersCursor } from '../../relations.js';
import {
  blockedResponse,
  messageResponse,
  mutedResponse,
  passwordChangeBody,
  profileChangeBody,
  relatedUsersQuery,
  relatedUsersResponse,
  userResponse,
} from '../../schemas.js';
import type { Sessions } from '../../sessions.js';
import type { PasswordChecks } from '../password-checks.js';

export interface UserRoutesOptions {
  accounts: Accounts;
  relations: Relations;
  sessions: Sessions;
  passwordChecked: PasswordChecks;
}

/** Profiles, the caller's password, and the caller's mutes and blocks of other users: `/api/users/...`. */
export default async function userRoutes(
  app: App,
  { accounts, relations, sessions, passwordChecked }: UserRoutesOptions,
) {
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
      if (!user) throw unauthorized('ACCOUNT_DELETED');
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
      if (!user) throw unauthorized('ACCOUNT_DELETED');
      return { user: toAuthor(user) };
    },
  );

  app.put(
    '/me/password',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Change the caller’s password, ending every other session of theirs',
        description: 'A wrong `currentPassword` is `401` and counts as a failed login.',
        operationId: 'changeMyPassword',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        body: passwordChangeBody,
        response: { 200: messageResponse, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { currentPassword, newPassword } = request.body;
      await passwordChecked(request, reply, caller.username, () =>
        accounts.authenticate(caller.username, currentPassword),
      );
      const except = caller.session?.id ?? null;
      const { committed } = await accounts.changePassword(caller.id, newPassword, (tx) =>
        sessions.endOthersIn(tx, caller.id, except, request.id),
      );
      committed();
      return { message: 'Password changed' };
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

  /**
   * The other user `id` names (a UUID, a username in any case, never the caller): 400 for the caller, 404 for nobody.
   */
  async function otherUser(callerId: string, id: string, kind: RelationKind): Promise<string> {
    const refuseSelf = () =>
      badRequest(`You cannot ${kind} yourself`, [{ path: 'id', message: 'must be another user' }]);
    if (id.toLowerCase() === 'me') throw refuseSelf();
    // A deleted account's token may outlive it by a moment: it relates nobody to anyone.
    if (!(await accounts.find(callerId))) throw unauthorized('ACCOUNT_DELETED');
    const user = await accounts.find(id);
    if (!user) throw notFound('User not found');
    if (user.id === callerId) throw refuseSelf();
    return user.id;
  }

  /** The schema of `PUT` (start) or `DELETE` (end) of the caller's mute or block of the user `id`; both idempotent. */
  const relationSchema = <Response extends z.ZodType>(kind: RelationKind, on: boolean, response: Response) => ({
    summary: on ? `${kind === 'mute' ? 'Mute' : 'Block'} a user` : `Un${kind} a user`,
    operationId: `${on ? '' : 'un'}${kind}User`,
    tags: ['users'],
    security: [{ bearerAuth: [] }],
    params: z.object({ id: z.string().max(100) }),
    response: { 200: response, ...problemResponses(400, 401, 404) },
  });

  /** Sets the caller's `kind` of the user `id` to `on`, and gives whether it holds now. */
  async function setRelation(request: FastifyRequest, kind: RelationKind, on: boolean): Promise<boolean> {
    const caller = callerOf(request).id;
    const { id } = request.params as { id: string };
    return relations.set(caller, await otherUser(caller, id, kind), kind, on, request.id);
  }

  const required = { onRequest: app.auth.required };
  app.put('/:id/mute', { ...required, schema: relationSchema('mute', true, mutedResponse) }, async (request) => ({
    muted: await setRelation(request, 'mute', true),
  }));
  app.delete('/:id/mute', { ...required, schema: relationSchema('mute', false, mutedResponse) }, async (request) => ({
    muted: await setRelation(request, 'mute', false),
  }));
  app.put('/:id/block', { ...required, schema: relationSchema('block', true, blockedResponse) }, async (request) => ({
    blocked: await setRelation(request, 'block', true),
  }));
  app.delete(
    '/:id/block',
    { ...required, schema: relationSchema('block', false, blockedResponse) },
    async (request) => ({ blocked: await setRelation(request, 'block', false) }),
  );

  for (const { kind, list, noun } of [
    { kind: 'mute', list: 'mutes', noun: 'muted' },
    { kind: 'block', list: 'blocks', noun: 'blocked' },
  ] as const) {
    app.get(
      `/me/${list}`,
      {
        onRequest: app.auth.required,
        schema: {
          summary: `The users the caller has ${noun}, most recent first`,
          operationId: kind === 'mute' ? 'listMyMutes' : 'listMyBlocks',
          tags: ['users'],
          security: [{ bearerAuth: [] }],
          querystring: relatedUsersQuery(relatedUsersCursor[kind]),
          response: { 200: relatedUsersResponse, ...problemResponses(400, 401) },
        },
      },
      async (request, reply) =>
        withListLinks(request, reply, await relations.list(callerOf(request).id, kind, request.query)),
    );
  }
}
