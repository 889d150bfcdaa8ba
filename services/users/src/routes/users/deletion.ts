import { callerOf } from '@recipes/auth';
import { type App, problemResponses, unauthorized } from '@recipes/http';
import { type Accounts } from '../../accounts.js';
import type { Deletions } from '../../deletions.js';
import { accountDeletionBody, messageResponse } from '../../schemas.js';
import type { PasswordChecks } from '../password-checks.js';

export interface DeletionRoutesOptions {
  accounts: Accounts;
  deletions: Deletions;
  passwordChecked: PasswordChecks;
}

/** `DELETE /api/users/me` (docs/api.md §11.2): the caller leaves, proving it with their password. */
export default async function deletionRoutes(
  app: App,
  { accounts, deletions, passwordChecked }: DeletionRoutesOptions,
) {
  app.delete(
    '/me',
    {
      onRequest: app.auth.required,
      // A retry's token: its session ended with the deletion its first try committed.
      config: { acceptsEndedSessions: true },
      schema: {
        summary: 'Delete the caller’s account',
        description:
          'Every session ends at once; the username stays reserved; every service then erases what it holds of the user. ' +
          'A wrong `password` is `401` and counts as a failed login. A retry after a deletion that began (its answer lost) ' +
          'is `202` again, with the token of the deleted account.',
        operationId: 'deleteMyAccount',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        body: accountDeletionBody,
        response: { 202: messageResponse, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const started = () => reply.code(202).send({ message: 'Account deletion started' });
      // A retry of a deletion that committed, whose answer a fault lost: the same answer again. The password
      // went with the account, so the tombstone decides, for a token of the account signed before it left.
      if (await deletions.find(caller.id)) return started();
      if (caller.sessionEnded) throw unauthorized('SESSION_ENDED');
      await passwordChecked(request, reply, caller.username, () =>
        accounts.authenticate(caller.username, request.body.password),
      );
      // Two deletions at once: the second finds no live account, but the tombstone of the first.
      if (!(await deletions.start(caller.id, request.id)) && !(await deletions.find(caller.id)))
        throw unauthorized('ACCOUNT_DELETED');
      return started();
    },
  );
}
